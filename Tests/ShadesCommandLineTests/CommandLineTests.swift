import Testing
import Foundation
import ShadesTestSupport

@Suite struct CommandLineTests {
    let folder = temporaryFolder("cli")

    /// The issue's command forms (shortened durations keep the suite quick; the forms are the same).
    @Test(arguments: [
        "render pink --duration 10s --rate 48000 --channels stereo --level -20 --seed 7 --format s16 -o pink.wav",
        "render white --duration 9s -o white.flac",
        "render brown --duration 0.1h --loop -o brown.wav",
        "render noise --beta 0.5 --duration 3s -o tilt.wav",
        "render tone --frequency 6kHz --duration 0.2m --channels left -o tone.wav",
        "render noise --beta -1.5 --duration 1.5s --format f32 -o blue.wav",
        "render tone --frequency 440Hz --duration 1s --loop --level -30dBFS -o a440.flac",
        "render binaural --carrier 200Hz --beat 10Hz --duration 2s -o binaural.wav",
        "render isochronic --frequency 200Hz --beat 10Hz --duty 0.5 --ramp 5ms --duration 2s -o iso.wav",
        "render velvet --density 2000 --duration 2s -o velvet.wav",
        "render fractal --scale pentatonic --low 523.25Hz --high 2093Hz --tempo 80 --seed 4 --duration 5s -o fractal.wav",
        "render fractal --scale minor --tempo 60 --duration 6s --loop -o fractal-loop.flac",
    ])
    func issueExamplesWork(command: String) throws {
        let arguments = command.split(separator: " ").map(String.init)
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/\(arguments.last!)"))
        #expect(result.stdout.contains("wrote"))
    }

    /// A level the format cannot carry is refused in one line naming the lowest it carries, and no file is
    /// written; f32 carries it. What render prints is the written file's level, read back.
    @Test func levelsBelowTheFormatAreRefusedAndThePrintedLevelIsTheFile() throws {
        let refused = try Shell.run(["render", "pink", "--level", "-150", "--duration", "1s", "-o", "quiet.wav"], in: folder)
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--level -150 dBFS") && refused.stderr.contains("at least -69.9 dBFS"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/quiet.wav"))
        let tone = try Shell.run(["render", "tone", "--frequency", "1kHz", "--level", "-100", "--duration", "1s", "-o", "t.wav"], in: folder)
        #expect(tone.status == 2 && tone.stderr.contains("at least -69.9 dBFS"))
        let float = try Shell.run(["render", "pink", "--level", "-150", "--duration", "1s", "--format", "f32", "-o", "quiet.wav"], in: folder)
        #expect(float.status == 0 && float.stdout.contains("RMS -150.0 dBFS"), "\(float.stdout)")
        // At the lowest s16 level the written RMS is within 0.01 dB of it; a pulsed tone's file RMS is its own.
        let lowest = try Shell.run(["render", "tone", "--frequency", "1kHz", "--level", "-69.9", "--duration", "1s", "-o", "low.wav"], in: folder)
        #expect(lowest.stdout.contains("RMS -69.89 dBFS") || lowest.stdout.contains("RMS -69.9 dBFS"), "\(lowest.stdout)")
        let pulsed = try Shell.run(["render", "tone", "--frequency", "1kHz", "--pulse", "200ms/200ms", "--duration", "2s", "-o", "p.wav"], in: folder)
        #expect(pulsed.stdout.contains("file RMS -23.") && pulsed.stdout.contains("(sustained sound -20.0 dBFS)"), "\(pulsed.stdout)")
    }

    @Test func sameCommandTwiceGivesTheSameBytes() throws {
        for name in ["one.wav", "two.wav"] {
            _ = try Shell.run(["render", "pink", "--duration", "2s", "--seed", "7", "-o", name], in: folder)
        }
        let one = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/one.wav"))
        let two = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/two.wav"))
        #expect(one == two && !one.isEmpty)
    }

    /// Every bad input: one line naming the parameter, the right exit code, no output file.
    @Test(arguments: [
        ("render pink --duration nan -o out.wav", Int32(2), "duration"),
        ("render pink --duration inf -o out.wav", 2, "duration"),
        ("render pink --duration -5s -o out.wav", 2, "duration"),
        ("render pink --duration 0 -o out.wav", 2, "duration"),
        ("render tone --frequency 0 --duration 1s -o out.wav", 2, "frequency"),
        ("render tone --frequency -440 --duration 1s -o out.wav", 2, "frequency"),
        ("render tone --frequency 24kHz --duration 1s -o out.wav", 2, "frequency"),
        ("render tone --frequency 30kHz --rate 44100 --duration 1s -o out.wav", 2, "frequency"),
        ("render tone --frequency nan --duration 1s -o out.wav", 2, "frequency"),
        ("render purple --duration 1s -o out.wav", 2, "source"),
        ("render noise --beta 2.5 --duration 1s -o out.wav", 2, "beta"),
        ("render noise --beta -3 --duration 1s -o out.wav", 2, "beta"),
        ("render noise --duration 1s -o out.wav", 2, "beta"),
        ("render pink --duration 1s --rate 4000 -o out.wav", 2, "rate"),
        ("render pink --duration 1s --rate 500kHz -o out.wav", 2, "rate"),
        ("render pink --duration 1s --level 3 -o out.wav", 2, "level"),
        ("render pink --duration 1s --channels quad -o out.wav", 2, "channels"),
        ("render pink --duration 1s --format s8 -o out.wav", 2, "format"),
        ("render pink --duration 1s --format f32 -o out.flac", 2, "format"),
        ("render pink --duration 1s -o out.mp3", 2, "extension"),
        ("render pink --duration 1s -o /nonexistent-folder/out.wav", 2, "folder"),
        ("render white --duration 2s --level -2 -o out.wav", 1, "highest level that fits"),
        ("render tone --frequency 1kHz --duration 1s --level -1 -o out.wav", 1, "highest level that fits"),
        ("render velvet --density 100 --duration 1s --level -10 -o out.wav", 1, "highest level that fits"),
        ("render binaural --carrier 200 --beat 10 --channels left --duration 1s -o out.wav", 2, "--channels"),
        ("render binaural --beat 10 --duration 1s -o out.wav", 2, "--carrier"),
        ("render isochronic --frequency 200 --beat 10 --pulse 100ms/100ms --duration 1s -o out.wav", 2, "--pulse"),
        ("render velvet --density 2000 --frequency 4k --duration 1s -o out.wav", 2, "--frequency"),
        ("render pink --tempo 90 --duration 1s -o out.wav", 2, "--tempo"),
        ("render fractal --scale blues --duration 1s -o out.wav", 2, "--scale"),
    ])
    func badInputGetsOneLineAnExitCodeAndNoFile(command: String, status: Int32, mentions: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == status, "\(command): exit \(result.status), \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(command): \(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(command): \(result.stderr)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("out") || $0.hasSuffix(".tmp") }
        #expect(outputs.isEmpty, "\(command) left \(outputs)")
    }

    /// The library's errors name parameters by the options the user typed, in each command's own words.
    @Test(arguments: [
        ("render pink --duration 1s --am 10 --am-depth 1.5 -o out.wav", "--am-depth 1.5 is out of range (allowed: 0 … 1)"),
        ("render cr --frequency 4k --cycle-rate 20 --duration 1s -o out.wav", "--cycle-rate 20 Hz is out of range (allowed: 0.1 … 10 Hz)"),
        ("render pink --notch 4k --edge-boost 40 --duration 1s -o out.wav", "--edge-boost 40 dB is out of range (allowed: 0 … 30 dB)"),
        ("render tone --frequency 6_kHz --duration 1s -o out.wav", "--frequency '6_kHz': not a frequency (allowed: above 0 Hz; e.g. 6kHz, 6000)"),
        ("render pink --duration abc -o out.wav", "--duration 'abc': not a duration (allowed: above 0 and at most 24 h; e.g. 90s, 10m, 1h, 50ms)"),
        ("render pink --duration 1s --level x -o out.wav", "--level 'x': not a level (allowed: at most 0 dBFS; e.g. -20, -20dBFS)"),
        ("notch-filter --frequency 4k --width 5 -o out.wav", "--width 5 octaves is out of range (allowed: above 0 and at most 3 octaves)"),
        ("stimuli residual-inhibition --frequency 4k --mml-step 3 -o out", "--mml-step 3 dB is out of range (allowed: 1 or 2 dB)"),
        ("render binaural --carrier 200Hz --beat 0 --duration 1s -o out.wav", "--beat 0 Hz is out of range (allowed: 0.1 … 100 Hz)"),
        ("render binaural --carrier 23995 --beat 10 --duration 1s -o out.wav",
         "--carrier 23995 Hz is out of range (allowed: above 0 and below 23990 Hz (carrier + beat below Nyquist, 24000 Hz))"),
        ("render isochronic --frequency 200 --duty 1.2 --duration 1s -o out.wav", "--duty 1.2 is out of range (allowed: above 0 and below 1)"),
        ("render isochronic --frequency 200 --beat 10 --ramp 60ms --duration 1s -o out.wav",
         "--ramp 60 ms is out of range (allowed: 0 … 50 ms, the shorter of the on and off times at this beat and duty)"),
        ("render velvet --density 30000 --duration 1s -o out.wav",
         "--density 30000 Hz is out of range (allowed: 1 … 24000 Hz (half the sample rate))"),
        ("render fractal --tempo 10 --duration 1s -o out.wav", "--tempo 10 BPM is out of range (allowed: 20 … 240 BPM)"),
        ("render fractal --low 500 --high 520 --duration 1s -o out.wav",
         "--high 520 Hz is out of range (allowed: from 561.23 to below 24000 Hz (at least two pitches of the scale from the low pitch))"),
        ("render fractal --scale blues --duration 1s -o out.wav",
         "--scale 'blues' is not a scale (allowed: pentatonic, minor-pentatonic, major, minor, dorian, mixolydian, whole-tone)"),
    ])
    func errorsNameTheOptionsTyped(command: String, line: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(result.stderr == "shades: error: \(line)\n")
    }

    /// A file where the output's folder should be is called a file, not a missing folder.
    @Test func aFileInTheOutputPathIsCalledAFile() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(folder)/p5.wav"))
        let result = try Shell.run(["render", "pink", "--duration", "1s", "-o", "p5.wav/x.wav"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr == "shades: error: -o p5.wav/x.wav: p5.wav is a file, not a folder (allowed: a file in an existing folder)\n")
    }

    /// A mistyped command is named, with the nearest command or the list, at any depth.
    @Test(arguments: [
        (["rendr", "pink"], "command 'rendr' is not a shades command (did you mean 'render'?)"),
        (["study", "plann"], "command 'plann' is not a shades study command (did you mean 'plan'?)"),
        (["catalogue", "xyzzyq"], "command 'xyzzyq' is not a shades catalogue command (allowed commands: build, check, help)"),
    ])
    func aMistypedCommandIsNamed(arguments: [String], line: String) throws {
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == 2)
        #expect(result.stderr == "shades: error: \(line)\n")
    }

    /// A file's missing folder is the caller's error, for every command that writes a file; only an output
    /// given as a folder is made. Nothing is created.
    @Test func aFilesMissingFolderIsRefusedAndOnlyAFolderOutputIsMade() throws {
        let tone = try Shell.run(["render", "tone", "--frequency", "1kHz", "--duration", "1s", "-o", "t.wav"], in: folder)
        #expect(tone.status == 0, "\(tone.stderr)")
        for (arguments, option) in [(["render", "pink", "--duration", "1s", "-o", "none/x.wav"], "-o"),
                                    (["notch", "t.wav", "--frequency", "4kHz", "-o", "none/x.wav"], "-o"),
                                    (["notch-filter", "--frequency", "4kHz", "-o", "none/x.wav"], "-o"),
                                    (["analyze", "t.wav", "--plot", "none/x.svg"], "--plot")] {
            let result = try Shell.run(arguments, in: folder)
            let output = arguments.last!
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "shades: error: \(option) \(output): folder none does not exist (allowed: a file in an existing folder)\n")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/none"))
        }
        let notched = try Shell.run(["notch", "t.wav", "--frequency", "4kHz", "-o", "made/"], in: folder)
        #expect(notched.status == 0, "\(notched.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/made/t-notched.wav"))
    }

    @Test func helpShowsExamples() throws {
        let result = try Shell.run(["render", "--help"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.contains("shades render brown --duration 1h --loop -o brown.wav"))
        #expect(result.stdout.contains("grey"))
    }

    /// Every command's help is wrapped once, at 80 columns: no line is longer, and no line of prose breaks
    /// early (a line followed by more of its paragraph reaches past column 60).
    @Test(arguments: [["--help"], ["render", "--help"], ["play", "--help"], ["notch", "--help"], ["notch-filter", "--help"],
                      ["stimuli", "--help"], ["match", "--help"], ["analyze", "--help"], ["catalogue", "build", "--help"]])
    func helpIsWrappedOnceAt80Columns(arguments: [String]) throws {
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines { #expect(line.count <= 80, "\(arguments): \(line)") }
        let discussion = lines.prefix { !$0.hasPrefix("USAGE:") }
        for (line, next) in zip(discussion, discussion.dropFirst())
        where !line.isEmpty && !line.hasPrefix(" ") && !line.hasSuffix(":") && !next.isEmpty && !next.hasPrefix(" ")
            && next.first!.isLowercase {
            #expect(line.count > 60, "\(arguments): broken early: \(line)")
        }
    }

    @Test func playAPresetWithoutItsFolderSaysHowToPointAtIt() throws {
        let result = try Shell.run(["play", "--preset", "pink-am10", "--presets", "nowhere"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("no presets folder 'nowhere' here (allowed: --presets FOLDER"), "\(result.stderr)")
    }

    /// What `play` would ignore or cannot do is refused before any audio starts, in one line naming the
    /// option: a timer of 0 or less, a fade longer than the timer, a modifier's option without the modifier.
    @Test(arguments: [
        (["pink", "--timer", "0s"], "--timer"), (["pink", "--timer=-1s"], "--timer"),
        (["pink", "--timer", "10s", "--fade-out", "20s"], "--fade-out 20 s is longer than --timer 10 s"),
        (["pink", "--timer", "10s", "--fade", "11s"], "--fade 11 s is longer than --timer 10 s"),
        (["pink", "--fade-out", "5s"], "--fade-out applies to --timer"),
        (["pink", "--am-depth", "0.5"], "--am-depth applies to --am"), (["pink", "--am-phase", "1"], "--am-phase applies to --am"),
        (["pink", "--notch-width", "0.5"], "--notch-width applies to --notch"), (["pink", "--edge-width", "0.5", "--notch", "4kHz"], "--edge-width applies to --edge-boost"),
        (["pink", "--width", "0.5"], "--width applies to --notch, which is not given, or to the sources nbn"), (["tone", "--frequency", "1kHz", "--ramp", "10ms"], "--ramp applies to --pulse"),
    ])
    func playRefusesWhatItWouldIgnore(arguments: [String], message: String) throws {
        let result = try Shell.run(["play"] + arguments, in: folder, environment: ["PULSE_SERVER": "unix:/nonexistent"])
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("shades: error: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        // The same modifier options with their base are not refused (they get as far as the audio device).
        _ = try Shell.run(["render", "pink", "--duration", "1s", "-o", "music.wav"], in: folder)
        let accepted = try Shell.run(["play", "music.wav", "--notch", "500Hz", "--width", "0.5", "--am", "4", "--am-depth", "0.5"], in: folder,
                                     environment: ["PULSE_SERVER": "unix:/nonexistent", "XDG_RUNTIME_DIR": "/nonexistent"])
        #expect(accepted.status != 2, "\(accepted.stderr)")
    }

    /// Without an audio server or sound card, `play --device list` says so and fails (it printed nothing
    /// and exited 0).
    @Test func playDeviceListWithoutAServerSaysSo() throws {
        let result = try Shell.run(["play", "--device", "list"], in: folder,
                                   environment: ["PULSE_SERVER": "unix:/nonexistent", "XDG_RUNTIME_DIR": "/nonexistent"])
        guard result.stdout.isEmpty else { return }   // a machine with a sound card lists it
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("shades: error: no audio output device found"), "\(result.stderr)")
    }

    /// With no sound card and no ALSA configuration (a cluster node, a bare chroot), `play` fails in one line
    /// (PortAudio 19.6 aborted in its ALSA device list).
    @Test(arguments: [["play", "--device", "list"], ["play", "pink", "--timer", "1s"]])
    func playWithoutAnALSAConfigurationSaysSo(arguments: [String]) throws {
        guard !FileManager.default.fileExists(atPath: "/dev/snd") else { return }   // a card: ALSA finds it anyway
        let result = try Shell.run(arguments, in: folder, environment: ["ALSA_CONFIG_PATH": "/nonexistent"])
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("shades: error: no audio device: no sound card and no ALSA configuration"), "\(result.stderr)")
    }
}

import Testing
import Foundation
import ShadesTestSupport
import ShadesRender

/// Every value option of every command (read from `shades --experimental-dump-help`, so a new option is
/// covered as soon as it exists) × hostile values: negative, zero, huge, NaN, a unit typo and empty. Each
/// is either refused with exit 2 and one line naming the option as typed and what it allows, leaving no
/// file, or (a value the option allows, such as a negative level) accepted. Nothing traps, hangs or
/// answers "Missing value".
@Suite struct HostileInputTests {
    /// The values tried for every option.
    static let values = ["-5", "0", "1e15", "1e308", "nan", "5xyz", ""]

    /// Options whose value is a path, a device or a preset id (their own suites cover them): not numbers.
    static let pathOptions: Set<String> = [
        "output", "sound", "from-match", "audiogram", "reference", "reference-from", "report", "plot", "pipewire",
        "music", "presets", "preset", "device", "index",
    ]

    /// Files the commands read: a short stereo WAV, an audiogram of the left ear, a one-sound preset folder, a
    /// planned study of one patient (half a second of pink noise at −30 dBFS).
    static let fixtures: (folder: String, input: String, audiogram: String, presets: String) = {
        let folder = temporaryFolder("hostile-fixtures")
        _ = try? Shell.run(["render", "pink", "--duration", "0.2s", "-o", "in.wav"], in: folder)
        _ = try? Shell.run(["audiometry", "--simulate-audiogram", "250:10,1000:20,4000:40", "--ear", "left", "--seed", "1",
                            "-o", "audiogram.json"], in: folder)
        try? FileManager.default.createDirectory(atPath: folder + "/presets", withIntermediateDirectories: true)
        try? """
            {"defaults": {"lengthSeconds": 0.5}, "categories": [{"id": "c", "titles": {"en": "C", "de": "C"},
             "sounds": [{"id": "s", "titles": {"en": "S", "de": "S"}, "sound": {"source": "pink"}}]}]}
            """.write(toFile: folder + "/presets/p.json", atomically: false, encoding: .utf8)
        // A reverse-correlation set of four and answers to it.
        _ = try? Shell.run(["stimuli", "revcorr", "--count", "4", "--duration", "0.05s", "-o", "revcorr"], in: folder)
        try? "1,yes\n2,no\n3,yes\n".write(toFile: folder + "/revcorr/answers.csv", atomically: false, encoding: .utf8)
        let calibration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Presets/studies/example-calibration.json").path
        try? """
            {"name": "tiny", "seed": 1, "calibration": "\(calibration)", "ceilingDBSPL": 85, "format": "flac", "sampleFormat": "s16",
             "arms": [{"name": "a", "sounds": [{"name": "n", "level": "-30 dBFS", "durationSeconds": 0.5, "sound": {"source": "pink"}}]}]}
            """.write(toFile: folder + "/tiny.json", atomically: false, encoding: .utf8)
        try? "id,site,arm,tinnitusHz,audiogram,mml,music\nP1,Ulm,a,6000,,,\n".write(toFile: folder + "/tiny.csv", atomically: false, encoding: .utf8)
        _ = try? Shell.run(["study", "plan", "tiny.json", "tiny.csv", "-o", "study"], in: folder)
        return (folder, folder + "/in.wav", folder + "/audiogram.json", folder + "/presets")
    }()

    /// A command line in which `flag` of `command` takes effect: the command's base, or one made for the
    /// flag (a source it applies to, the option it refines). Short sounds keep the accepted cases quick.
    static func context(_ command: String, _ flag: String) -> [String]? {
        let f = fixtures
        func sound(_ verb: String, _ words: [String]) -> [String] {
            if verb == "render" { return ["render"] + words + ["-o", "out.wav"] }
            var words = words  // play's length is its --timer
            if let at = words.firstIndex(of: "--duration") { words.removeSubrange(at...at + 1) }
            return ["play"] + words + ["--timer", "0.1s"]
        }
        func soundContext(_ verb: String) -> [String] {
            let short = ["--duration", "0.01s"]
            let cr = ["cr", "--frequency", "4k", "--duration", "0.2s"], ripple = ["ripple", "--frequency", "4k", "--duration", "1s"]
            let words: [String]
            switch flag {
            case "duration": words = ["pink"]
            case "frequency": words = ["tone"] + short
            case "tones", "tone-length", "tone-ramp", "cycle-rate", "on-cycles", "off-cycles", "tone-gains": words = cr
            case "condition", "band-gains": words = ripple
            case "carrier": words = ["binaural"] + short
            case "beat": words = ["binaural", "--carrier", "200"] + short
            case "duty": words = ["isochronic", "--frequency", "200", "--duration", "0.1s"]
            case "density": words = ["velvet"] + short
            case "scale", "low", "high", "tempo": words = ["fractal", "--duration", "1s"]
            case "beta": words = ["noise"] + short
            case "bin-low", "bin-high", "bin-scale", "bin-levels": words = ["binned-noise", "--duration", "0.1s"]
            case "width": words = ["nbn", "--frequency", "1k"] + short
            case "corner", "slope": words = ["high-tone-noise"] + short
            case "harmonics": words = ["tinnitus-tone", "--frequency", "1k"] + short
            case "heart-rate": words = ["tinnitus-pulse", "--frequency", "500", "--duration", "2s"]
            case "fluctuation", "fluctuation-depth": words = ["tinnitus-roar", "--frequency", "500", "--duration", "2.1s"]
            case "chirp-rate", "syllables", "syllable-rate": words = ["tinnitus-cricket", "--frequency", "5k", "--duration", "2.1s"]
            case "am-depth", "am-phase", "am-keep": words = ["pink", "--am", "10"] + short
            case "notch-width", "edge-boost": words = ["pink", "--notch", "6k"] + short
            case "edge-width": words = ["pink", "--notch", "6k", "--edge-boost", "10"] + short
            case "pulse": words = ["tone", "--frequency", "1k"] + short
            case "ramp": words = ["tone", "--frequency", "1k", "--pulse", "4ms/4ms"] + short
            case "pulse-count": words = ["tone", "--frequency", "1k", "--pulse", "2ms/2ms"] + short
            case "ear", "rule", "max-gain": words = ["pink", "--audiogram", f.audiogram] + short
            case "distribution": words = ["white"] + short
            case "tinnitus-frequency": return ["play", "--preset", "s", "--presets", f.presets, "--timer", "0.1s"]
            default: words = ["pink"] + (verb == "render" ? short : [])
            }
            return sound(verb, words)
        }
        switch command {
        case "render", "play": return soundContext(command)
        case "stimuli audiometry":
            return ["stimuli", "audiometry", "--frequencies", "1k", "--ear", "left", "--pulse", "4ms/4ms", "--ramp", "1ms",
                    "--pulse-count", "1", "-o", "out"]
        case "stimuli pitch-match": return ["stimuli", "pitch-match", "--from", "1k", "--to", "1k", "-o", "out"]
        case "stimuli tinnitus-quality": return ["stimuli", "tinnitus-quality", "--duration", "1.1s", "-o", "out"]
        case "stimuli residual-inhibition":
            return ["stimuli", "residual-inhibition", "--frequency", "4k", "--masker", "0.1s", "--silence", "0.1s", "--onset", "10ms",
                    "--probe", "0.1s", "--mml-from", "0", "--mml-to", "0", "-o", "out"]
        case "notch":
            switch flag {
            case "left", "right": return ["notch", f.input, "--" + flag, "4k", "-o", "out.wav"]
            case "quality": return ["notch", f.input, "--frequency", "4k", "--rate", "44100", "-o", "out.wav"]
            case "container": return ["notch", f.input, "--frequency", "4k", "-o", "out/"]
            case "edge-width": return ["notch", f.input, "--frequency", "4k", "--edge-boost", "10", "-o", "out.wav"]
            default: return ["notch", f.input, "--frequency", "4k", "-o", "out.wav"]
            }
        case "notch-filter":
            return ["notch-filter", "--frequency", "4k", "-o", "ir.wav"] + (flag == "edge-width" ? ["--edge-boost", "10"] : [])
        case "match": return flag == "level" ? ["match"] : ["match", "--simulate", "5k"]
        case "audiometry": return ["audiometry", "--simulate-audiogram", "1k:20", "--frequencies", "1k", "--ear", "left"]
        case "meter": return ["meter", "--duration", "0.01s"]
        case "loudness-match", "mml", "mril":
            // A threshold tried with a tinnitus at it: the threshold's range answers, not the tinnitus's.
            return [command, "--frequency", "4k", "--threshold", "-60", "--simulate", flag == "threshold" ? "0dB" : "10dB"]
                + (flag == "ramp" ? ["--envelope", "trapezoidal"] : [])
        case "stimuli revcorr": return ["stimuli", "revcorr", "--count", "2", "--duration", "0.05s", "-o", "out"]
        case "revcorr reconstruct": return ["revcorr", "reconstruct", f.folder + "/revcorr/answers.csv", "-o", "out.json"]
        case "revcorr simulate": return ["revcorr", "simulate", "--index", f.folder + "/revcorr", "--frequency", "1k", "-o", "s.csv"]
        case "analyze":
            switch flag {
            case "notch": return ["analyze", f.input, "--reference", f.input]
            case "width": return ["analyze", f.input, "--reference", f.input, "--notch", "4k"]
            case "listen": return ["analyze", f.input, "--calibration", "94dB@-20dBFS"]
            default: return ["analyze", f.input]
            }
        case "catalogue build":
            return ["catalogue", "build", f.presets, "-o", "cat"]
                + (["ear", "rule", "max-gain"].contains(flag) ? ["--tinnitus-frequency", "6k", "--audiogram", f.audiogram] : [])
        case "study build", "study check", "study slurm":
            return command.split(separator: " ").map(String.init) + [f.folder + "/study"]
        default: return nil
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let command: String
        let flag: String
        let value: String
        /// The command line; nil when the test has no context for the option (a new command: add one).
        let arguments: [String]?
        var testDescription: String { "\(command) --\(flag) '\(value)'" }
    }

    /// Every (command, value option) of the tool, from its own description of itself.
    static let cases: [Case] = {
        guard let help = try? Shell.run(["--experimental-dump-help"], in: NSTemporaryDirectory()),
              let json = try? JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any],
              let root = json["command"] as? [String: Any] else { return [] }
        var cases: [Case] = []
        func walk(_ command: [String: Any], words: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            for sub in subcommands { walk(sub, words: words + [sub["commandName"] as? String ?? "?"]) }
            guard subcommands.isEmpty, !words.isEmpty else { return }
            let name = words.joined(separator: " ")
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
                guard let flag = (argument["preferredName"] as? [String: Any])?["name"] as? String else { continue }
                // `--calibration` is a file for audiometry, a value (94dB@-20dBFS) for meter and analyze.
                if pathOptions.contains(flag) || (flag == "calibration" && name == "audiometry") { continue }
                for value in values {
                    var arguments = context(name, flag)
                    if var line = arguments {
                        if let at = line.firstIndex(of: "--" + flag) { line[at + 1] = value } else { line += ["--" + flag, value] }
                        arguments = line
                    }
                    cases.append(Case(command: name, flag: flag, value: value, arguments: arguments))
                }
            }
        }
        walk(root, words: [])
        return cases
    }()

    @Test func everyCommandsOptionsAreListed() {
        #expect(Self.cases.count > 500, "shades --experimental-dump-help gave \(Self.cases.count) cases")
        for command in ["render", "play", "notch", "stimuli residual-inhibition", "catalogue build", "meter"] {
            #expect(Self.cases.contains { $0.command == command }, "\(command)")
        }
    }

    @Test(arguments: cases)
    func hostileValueIsRefusedInOneLineOrAccepted(_ hostile: Case) throws {
        let arguments = try #require(hostile.arguments, "no command line for \(hostile.command) --\(hostile.flag): add one to context(_:_:)")
        let folder = temporaryFolder("hostile-case")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(arguments, in: folder)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let flag = "--" + hostile.flag
        let shown = "\(hostile): exit \(result.status): \(result.stderr)"
        #expect(result.status <= 2, "\(shown)")  // no signal, no trap
        #expect(!result.stderr.contains("Missing value"), "\(shown)")
        switch result.status {
        case 0: break  // a value the option allows
        case 2 where lines.count == 1 && lines[0].contains("needs a terminal"): break  // allowed; the procedure is interactive
        case 2:
            #expect(lines.count == 1, "\(shown)")
            #expect(lines.first?.contains(flag) == true, "\(shown)")
            #expect(lines.first.map { ["allowed", "e.g.", "Please provide one of"].contains(where: $0.contains) } == true, "\(shown)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(shown)")
        default:
            // Allowed values that meet the run: no audio device here, a level the format cannot carry.
            let runtime = ["no audio", "would clip", "would put the true peak"]
            #expect(lines.count == 1 && runtime.contains(where: result.stderr.contains), "\(shown)")
        }
    }
}

/// The cases one by one: each refused with exit 2 and exactly this line (or a line holding it), and
/// no output file.
@Suite struct ValueMessageTests {
    let folder = temporaryFolder("values")

    /// Runs `command` in the test's folder; expects exit 2, one line holding `expected`, and no new file.
    func expectRefused(_ command: String, _ expected: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 2, "\(command): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.count == 1 && lines[0].contains(expected), "\(command): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before, "\(command) left a file",
                sourceLocation: sourceLocation)
    }

    /// Numbers that overflowed the frame count trapped (SIGILL); negative values were "missing".
    @Test(arguments: [
        ("render pink --duration 1e15 -o x.wav", "--duration 1e+15 s is out of range (allowed: above 0 and at most 24 h)"),
        ("render pink --duration 1e20 -o x.wav", "--duration 1e+20 s is out of range"),
        ("render pink --duration 1e308 -o x.wav", "--duration 1e+308 s is out of range"),
        ("render pink --duration 200000000000000 -o x.wav", "--duration 200000000000000 s is out of range"),
        ("render pink --duration 999999999999999h -o x.wav", "--duration 3.6e+18 s is out of range"),
        ("render tone --frequency 1k --pulse 1e15s/1s --duration 1s -o x.wav", "--pulse (on time) 1e+15 s is out of range"),
        ("play pink --buffer 99999999999999999999s", "--buffer '99999999999999999999s' is out of range"),
        ("render pink --duration -5s -o x.wav", "--duration -5 s is out of range (allowed: above 0 and at most 24 h)"),
        ("render pink --duration 1s --rate -48000 -o x.wav", "--rate -48000 Hz is out of range (allowed: 8000 … 192000 Hz)"),
        ("render tone --frequency -440 --duration 1s -o x.wav", "--frequency -440 Hz is out of range"),
        ("render pink --duration 1s --seed -1 -o x.wav", "--seed -1 is out of range (allowed: a whole number, 0 … 18446744073709551615)"),
        ("render pink --notch 6k --edge-boost -20 --duration 1s -o x.wav", "--edge-boost -20 dB is out of range (allowed: 0 … 30 dB)"),
        ("render pink --fade -1s --duration 1s -o x.wav", "--fade -1 s is out of range (allowed: 0 … 24 h)"),
        ("render binaural --carrier -5 --duration 1s -o x.wav", "--carrier -5 Hz is out of range"),
        ("render tone --frequency 1k --pulse 200ms/200ms --pulse-count -3 -o x.wav", "--pulse-count -3 is out of range (allowed: 1 … 1000000"),
        ("render cr --frequency 4k --on-cycles -1 --duration 1s -o x.wav", "--on-cycles -1 is out of range (allowed: 1 … 1000 (whole numbers))"),
        ("render pink --pulse-count 0 -o x.wav", "--pulse-count 0 is out of range"),
    ])
    func hugeAndNegativeValuesAreOutOfRange(command: String, expected: String) throws {
        try expectRefused(command, expected)
    }

    /// Options that would be ignored in this combination are refused, naming what they apply to.
    @Test(arguments: [
        ("render pink --duration 1s --rule foo -o x.wav", "--rule applies to --audiogram"),
        ("render pink --duration 1s --max-gain nan -o x.wav", "--max-gain applies to --audiogram"),
        ("render pink --duration 1s --tones log-spaced -o x.wav", "--tones applies to 'cr' only"),
        ("render tone --frequency 1k --duration 1s --cycle-rate 2 -o x.wav", "--cycle-rate applies to 'cr' only"),
        ("render pink --duration 1s --condition phase -o x.wav", "--condition applies to 'ripple' only"),
        ("render pink --duration 1s --distribution uniform -o x.wav", "--distribution applies to 'white' and 'noise' only"),
        ("play --preset pink --level -30", "--level does not apply to --preset"),
        ("play pink --presets Presets", "--presets applies to --preset"),
        ("notch in.wav --frequency 4k --container flac -o y.wav", "--container applies to a folder of outputs"),
        ("notch in.wav --frequency 4k --quality fastest -o y.wav", "--quality applies to --rate"),
        ("notch in.wav --frequency 4k --edge-width 0.5 -o y.wav", "--edge-width applies to --edge-boost"),
        ("analyze in.wav --width 2", "--width applies to --notch"),
        ("match --simulate 5k --level -20", "--level does not apply"),
        ("match --octave-confusion", "--octave-confusion applies to --simulate"),
        ("audiometry --simulate-audiogram 1k:20 --device 0", "--device does not apply"),
        ("mml --frequency 4k --threshold -60 --simulate 10dB --seed 3", "--seed does not apply"),
        ("loudness-match --frequency 4k --threshold -60 --seed 3", "--seed applies to mml"),
        ("stimuli residual-inhibition --frequency 4k --level -30 -o ri", "--level does not apply to residual-inhibition"),
    ])
    func ignoredOptionsAreRefused(command: String, expected: String) throws {
        _ = try Shell.run(["render", "pink", "--duration", "0.1s", "-o", "in.wav"], in: folder)
        try expectRefused(command, expected)
    }

    /// Every message names the option as typed.
    @Test(arguments: [
        ("notch in.wav --right abc -o y.wav", "--right 'abc': not a frequency"),
        ("notch in.wav --left -5 -o y.wav", "--left -5 Hz is out of range"),
        ("notch in.wav --frequency 1k --container ogg -o d/", "--container 'ogg' is unknown (allowed: wav, flac)"),
        ("stimuli pitch-match --container ogg -o d", "--container 'ogg' is unknown (allowed: wav, flac)"),
        ("stimuli audiometry --frequencies -5 -o d", "--frequencies -5 Hz is out of range"),
        ("stimuli pitch-match --to 1e15 -o d", "--to 1e+15 Hz is out of range"),
        ("stimuli residual-inhibition --frequency 4k --above 1e15 -o d", "--above 1e+15 dB is out of range"),
        ("stimuli residual-inhibition --frequency 4k --masker -5 -o d", "--masker -5 s is out of range"),
        ("stimuli residual-inhibition --frequency 4k --onset 1e15 -o d", "--onset 1e+15 s is out of range"),
        ("analyze in.wav --reference in.wav --notch 1e15", "--notch 1e+15 Hz is out of range"),
        ("analyze in.wav --reference in.wav --notch 20kHz", "--notch 20000 Hz is out of range"),
        ("match --level -3", "--level -3 dBFS is out of range (allowed: at most -6 dBFS)"),
        ("analyze in.wav --colour 5", "--colour 5 is out of range"),
        ("mml --frequency 4k --threshold -5 --simulate 10dB", "--threshold -5 dBFS is out of range"),
        ("catalogue build presets --tinnitus-frequency -5", "--tinnitus-frequency -5 Hz is out of range"),
        ("catalogue build presets --rate 5", "--rate 5 Hz is out of range"),
        ("render pink --notch 1k --width 9 --duration 1s -o x.wav", "--width 9 octaves is out of range"),
        ("render pnk --duration 1s -o x.wav", "source 'pnk' is neither a sound (did you mean 'pink'?) nor an existing sound file"),
        ("render song.mp3 --duration 1s -o x.wav", "source 'song.mp3' is neither a sound (allowed: white, pink, brown,"),
    ])
    func messagesNameTheOptionAsTyped(command: String, expected: String) throws {
        _ = try Shell.run(["render", "pink", "--duration", "0.1s", "-o", "in.wav"], in: folder)
        try expectRefused(command, expected)
    }

    /// Live sound never passes full scale, and a result at the procedure's ceiling is not a level.
    @Test func levelsThatWouldClipOrAreNoMatchAreRefused() throws {
        var result = try Shell.run(["play", "brown", "--level", "-3", "--timer", "1s"], in: folder)
        #expect(result.status == 1 && result.stderr.hasPrefix("shades: error: level -3 dBFS would clip when played (peak +")
                && result.stderr.contains("in its first 10 s); the highest level that fits its first 10 s is -1"), "\(result.stderr)")
        result = try Shell.run(["loudness-match", "--frequency", "6kHz", "--threshold", "-20", "--simulate", "20dB", "-o", "loud.json"], in: folder)
        #expect(result.status == 0 && result.stdout == "the tinnitus was louder than a 6000 Hz tone at the highest level, -6 dBFS: no match\n",
                "\(result.stdout)\(result.stderr)")
        result = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "loud.json", "-o", "ri"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("--reference-from loud.json has no level (the loudness match found none)"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/ri"))
    }

    /// A stimulus set goes into a new or empty folder, or replaces the set a folder holds, whole: a file it
    /// did not write is never replaced.
    @Test func aStimulusSetReplacesOnlyASet() throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/mine", withIntermediateDirectories: false)
        try "precious".write(toFile: "\(folder)/mine/pulsed-tone-1000Hz-left.wav", atomically: false, encoding: .utf8)
        try expectRefused("stimuli audiometry --frequencies 1k -o mine", "-o mine holds files but no index.json of a stimulus set")
        #expect(try String(contentsOfFile: "\(folder)/mine/pulsed-tone-1000Hz-left.wav", encoding: .utf8) == "precious")

        #expect(try Shell.run(["stimuli", "audiometry", "--frequencies", "1k,2k", "-o", "set"], in: folder).status == 0)
        #expect(try Shell.run(["stimuli", "audiometry", "--frequencies", "4k", "-o", "set"], in: folder).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/set").sorted()
                == ["index.json", "pulsed-tone-4000Hz-left.wav", "pulsed-tone-4000Hz-right.wav"])
        try "notes".write(toFile: "\(folder)/set/notes.txt", atomically: false, encoding: .utf8)
        try expectRefused("stimuli audiometry --frequencies 4k -o set", "-o set: notes.txt is not a file of the set it holds")
    }

    /// A sound too short to carry its source would be silent (or a fragment whose level can never be met).
    @Test(arguments: [
        ("render tone --frequency 1k --duration 0.0000208333 -o x.wav", "--duration 0.020833 ms is too short for this sound (allowed: at least 1 ms, one period of the tone)"),
        ("render cr --frequency 4k --duration 0.0000208333 -o x.wav", "(allowed: at least 166.67 ms, one tone)"),
        ("render ripple --frequency 4k --duration 0.0000208333 -o x.wav", "(allowed: at least 1 s, its onset ramp)"),
        ("render fractal --duration 0.0000208333 -o x.wav", "(allowed: at least 750 ms, one note (a grid step))"),
        ("render velvet --duration 0.0000208333 -o x.wav", "(allowed: at least 0.5 ms, one impulse)"),
    ])
    func soundsTooShortForTheirSourceAreRefused(command: String, expected: String) throws {
        try expectRefused(command, expected)
    }

    /// A value in a sound file is named by its JSON key at its place in the file, never by a flag.
    @Test(arguments: [
        ("{\"source\": \"tone\",\n \"frequency\": 1e30}", "a.json:2:2: frequency 1e+30 Hz is out of range"),
        ("{\"source\": \"pink\", \"notch\": [{\"centreHz\": 23000}]}", "a.json:1:20: notch.centreHz 23000 Hz is out of range"),
        ("{\"layers\": [{\"source\": \"pink\",\n \"swell\": {\"periodSeconds\": 0}}]}", "a.json:2:12: layer 1: swell.periodSeconds 0 s is out of range (allowed: 2 … 60 s)"),
    ])
    func soundFileValuesAreNamedByKeyAndPosition(json: String, expected: String) throws {
        try json.write(toFile: "\(folder)/a.json", atomically: false, encoding: .utf8)
        try expectRefused("render --sound a.json --duration 1s -o x.wav", expected)
    }
}

/// The generators' flags (``Generator/flags``, from their descriptors) are declared as options of `render`
/// and `play`, each with its descriptor's help.
@Suite struct GeneratorFlagTests {
    @Test(arguments: ["render", "play"])
    func everyGeneratorFlagIsAnOptionWithItsHelp(command: String) throws {
        let help = try Shell.run([command, "--help"], in: NSTemporaryDirectory())
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for row in Generator.flags {
            #expect(text.contains("--\(row.flag) "), "--\(row.flag)")
        }
        for name in Generator.sourceNames { #expect(text.contains(name), "\(name)") }
        for kind in Sound.modifierKinds {
            for flag in kind.flags { #expect(text.contains("--\(flag) "), "--\(flag)") }
        }
    }
}

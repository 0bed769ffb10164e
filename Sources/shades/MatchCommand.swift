import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlayback
import ShadesPlatform

/// `shades match`: interactive pitch matching (binary method, Henry et al. 2001) in the terminal, or the
/// same procedure answered by a simulated listener.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Find the tinnitus pitch by two-alternative choices (binary method), live, or with a simulated listener.",
        usage: "shades match [--simulate <frequency>] [<options>] [--output <output>]",
        discussion: """
            First each tone heard is set to the tinnitus loudness (up/down: ±1 dB, enter: done). Then pairs of \
            1-s tones: press 1 or 2 for the one closer to the tinnitus pitch (r: hear them again). An octave \
            stage (from 1 and 2 kHz, stopping at the first reversal or at 500 Hz / 16 kHz), a stage in whole \
            tones, then the match against half and double its frequency (octave confusion). The result (JSON \
            with -o) is read by `catalogue build --from-match` and `notch --from-match`. \
            Examples:
              shades match -o match.json
              shades match --simulate 5.2kHz --json
            """)

    @Option(help: "Answer with a simulated listener whose tinnitus is at this frequency (no audio).")
    var simulate: String?

    @Flag(name: .customLong("octave-confusion"), help: "With --simulate: a listener who matches an octave low.")
    var octaveConfusion = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(name: .shortAndLong, help: "Write the result as JSON to this file.")
    var output: String?

    @Option(parsing: .unconditional, help: "Level of the tones before the loudness balance, dBFS.")
    var level: String = "-30"

    @Option(help: "Output device (see `shades play --device list`).")
    var device: String?

    func run() throws {
        let result: PitchMatch.Result
        if let simulate {
            let target = try ValueParsing.hertz(simulate, parameter: "simulate")
            result = try SimulatedListener(targetHz: target, octaveConfusion: octaveConfusion).run(try PitchMatch())
        } else {
            guard isatty(0) == 1 else {
                throw ShadesError.usage("match is interactive: it needs a terminal (allowed: a terminal, or --simulate F)")
            }
            result = try InteractiveMatch(levelDBFS: try ValueParsing.decibels(level), device: device).run()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(result)
        if let output { try AtomicFile.write(Array(data), to: output) }
        if json {
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("matched \(formatNumber(result.frequency, roundedTo: 1)) Hz (range \(formatNumber(result.rangeLow, roundedTo: 1)) … "
                  + "\(formatNumber(result.rangeHigh, roundedTo: 1)) Hz) after \(result.choices.count) choices"
                  + (result.octaveConfusion ? "; octave confusion: F/2 or 2F was chosen over F" : ""))
        }
    }
}

/// The tinnitus frequency in a `shades match` result file.
func matchedFrequency(_ path: String) throws -> Double {
    guard let data = FileManager.default.contents(atPath: path) else { throw ShadesError.input("cannot read \(path)") }
    do { return try JSONDecoder().decode(PitchMatch.Result.self, from: data).frequency } catch {
        throw ShadesError(parameter: "from-match", value: path, problem: "is not a `shades match` result",
                          allowed: "the JSON `shades match -o FILE` writes")
    }
}

/// The procedure in the terminal: tones through the live engine, keys for the answers.
private struct InteractiveMatch {
    let levelDBFS: Double
    let device: String?
    let rate = 48_000.0

    func run() throws -> PitchMatch.Result {
        let engine = PlayerEngine(sampleRate: rate, channelCount: 2)
        let choice: OutputDeviceChoice = device.map { Int($0).map(OutputDeviceChoice.index) ?? .name($0) } ?? .systemDefault
        let output = try AudioOutput(engine: engine, device: choice, bufferFrames: 480, latencySeconds: PlayCommand.defaultLatencySeconds)
        try output.start()
        defer {
            output.stop()
            // Gaps in the tones would spoil the comparison: say how many there were.
            printToStandardError("match: \(engine.underruns) underruns of the audio device while the tones played"
                                 + " (real-time scheduling \(output.realTimeScheduling ? "granted" : "refused"))\n")
        }
        let terminal = RawTerminal()
        defer { terminal.restore() }
        var match = try PitchMatch()
        while true {
            switch match.step {
            case .done:
                printToStandardError("\r\u{1B}[K")
                return match.result!
            case .balance(let f):
                try match.answer(.level(try balance(f, engine: engine, terminal: terminal)))
            case .pair(let a, let b, let stage):
                let levelA = match.levels[a] ?? 0, levelB = match.levels[b] ?? 0
                var answer: PitchMatch.Answer?
                while answer == nil {
                    printToStandardError("\r\u{1B}[K\(stage.rawValue): which tone is closer to your tinnitus? 1 or 2 (r: again)")
                    try playPair(a, levelA, b, levelB, engine: engine)
                    switch terminal.key() {
                    case UInt8(ascii: "1"): answer = .first
                    case UInt8(ascii: "2"): answer = .second
                    case UInt8(ascii: "q"), 3: throw ShadesError.usage("match stopped before its end")
                    default: break
                    }
                }
                try match.answer(answer!)
            }
        }
    }

    /// A tone at `f` looped until enter; up/down move it by 1 dB. Returns the level, dB re the start.
    private func balance(_ f: Double, engine: PlayerEngine, terminal: RawTerminal) throws -> Double {
        let tone = try ToneSource(frequencyHz: f, sampleRate: rate, layout: .diotic, levelDBFS: levelDBFS)
        var db = 0.0
        let voice = try engine.play(tone, fadeInSeconds: 0.05)
        defer { engine.stop(voice, fadeSeconds: 0.05) }
        while true {
            printToStandardError("\r\u{1B}[Kloudness of \(formatNumber(f.rounded())) Hz: \(formatSigned(db, digits: 0)) dB (up/down, enter when as loud as your tinnitus)")
            switch terminal.key() {
            case UInt8(ascii: "A"), UInt8(ascii: "+"): db = min(40, db + 1)
            case UInt8(ascii: "B"), UInt8(ascii: "-"): db = max(-40, db - 1)
            case 10, 13: return db
            case UInt8(ascii: "q"), 3: throw ShadesError.usage("match stopped before its end")
            default: continue
            }
            engine.setGain(voice, gainDB: db)
        }
    }

    /// Tone a (1 s), 0.5 s of silence, tone b (1 s), each with 10 ms raised-cosine ramps.
    private func playPair(_ a: Double, _ levelA: Double, _ b: Double, _ levelB: Double, engine: PlayerEngine) throws {
        let second = Int(rate)
        for (k, (f, db)) in [(a, levelA), (b, levelB)].enumerated() {
            let tone = try FadedSource(source: ToneSource(frequencyHz: f, sampleRate: rate, layout: .diotic, levelDBFS: levelDBFS),
                                       fadeInSeconds: 0.01, fadeOutSeconds: 0.01, totalFrames: second)
            let start = engine.framesRendered + Int(0.1 * rate) + k * (second + second / 2)
            let voice = try engine.play(tone, gainDB: db, fadeInSeconds: 0, atFrame: start)
            engine.stop(voice, fadeSeconds: 0, atFrame: start + second)
        }
        usleep(2_700_000)
        engine.collectGarbage()
    }
}

/// The terminal in raw mode while matching: one key at a time (arrow keys as their last byte), restored after.
private final class RawTerminal {
    private var saved = termios()

    init() {
        tcgetattr(0, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(0, TCSANOW, &raw)
    }

    func restore() { tcsetattr(0, TCSANOW, &saved) }

    /// The next key (blocking); for an escape sequence, its last byte.
    func key() -> UInt8 {
        var byte: UInt8 = 0
        repeat { guard Platform.read(0, &byte, 1) == 1 else { return 3 } } while byte == 0x1B || byte == UInt8(ascii: "[")
        return byte
    }
}

import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesAudioDevice
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
            1-s tones, "1" then "2": press 1 or 2 for the one closer to the tinnitus pitch (r: hear them again, \
            q: stop). Which tone comes first is drawn from --seed (a fresh seed by default, written in the \
            result). Four parts: the octave (from 1 and 2 kHz, stopping at the first reversal or at 500 Hz / \
            16 kHz), whole tones, the match against half and double its frequency (octave confusion), and the \
            deciding pairs again in the reverse order (consistency). A match at 500 Hz or 16 kHz is flagged \
            (atLimit), as are octave confusion and inconsistent answers; `notch`, `catalogue build` and \
            `render`/`play` --from-match warn about them. The result (JSON with -o) is read by --from-match. \
            Examples:
              shades match -o match.json
              shades match --simulate 5.2kHz --seed 7 --json
            """)

    @Option(parsing: .unconditional, help: "Answer with a simulated listener whose tinnitus is at this frequency, 20 Hz … 20 kHz (no audio).")
    var simulate: String?

    @Flag(name: .customLong("octave-confusion"), help: "With --simulate: a listener who matches an octave low.")
    var octaveConfusion = false

    @OptionGroup var seed: SeedOption<ProcedureHelp.Seed>

    @OptionGroup var result: ResultOptions

    @OptionGroup var level: LevelOption<ProcedureHelp.MatchLevel>

    @OptionGroup var soundCard: OutputDeviceOption

    func run() throws {
        let seed = try seed.valueOrFresh()
        let procedure = try PitchMatch(seed: seed)
        try self.result.checkOutput(inputs: [])
        let result: PitchMatch.Result
        if let simulate {
            // A simulated listener hears nothing: these would be ignored.
            try refuseSoundOptions([("--level", level.level != nil), ("--device", soundCard.device != nil)], simulatedBy: "--simulate")
            let target = try ValueParsing.hertz(simulate, parameter: .listener)
            guard PitchMatch.allowedRangeHz.contains(target) else {
                throw ShadesError(parameter: .listener, value: "\(formatNumber(target)) Hz", allowed: "20 … 20000 Hz (the listener's tinnitus)")
            }
            result = try SimulatedListener(targetHz: target, octaveConfusion: octaveConfusion).run(procedure)
        } else {
            guard !octaveConfusion else {
                throw ShadesError.usage("--octave-confusion applies to --simulate, which is not given (allowed: --octave-confusion with --simulate)")
            }
            let level = try self.level.dBFS() ?? -30
            // The balance raises the tone up to the same highest level as loudness-match's, never to full scale.
            try Parameter(.level, unit: .dBFS, range: .atMost(LoudnessMatch.highestLevelDBFS, unit: .dBFS)).check(level)
            let console = try ProcedureConsole(device: soundCard.device, procedure: "match")
            defer { console.close() }
            result = try InteractiveMatch(levelDBFS: level, console: console).run(procedure)
        }
        try self.result.write(result, summary: ["matched \(formatNumber(result.frequencyHz, roundedTo: 1)) Hz (range \(formatNumber(result.rangeLowHz, roundedTo: 1)) … "
                                                + "\(formatNumber(result.rangeHighHz, roundedTo: 1)) Hz) after \(result.choices.count) choices; seed \(seed)"]
                                               + result.warnings.map { "flagged: \($0)" })
    }
}

/// The procedure in the terminal: an introduction, tones through the live engine, keys for the answers,
/// a line for each part and a status line that says which pair and which tone is playing.
private struct InteractiveMatch {
    let levelDBFS: Double
    let console: ProcedureConsole

    func run(_ procedure: PitchMatch) throws -> PitchMatch.Result {
        console.say("""
            Pitch matching: finding the pitch of your tinnitus.
            You will hear pairs of tones, tone 1 then tone 2. After each pair, press 1 or 2 for the tone whose \
            pitch is closer to your tinnitus (r: hear the pair again). Before a new tone is used you set its \
            loudness to that of your tinnitus (up/down arrows, enter when equal). It takes about 15 pairs in four \
            parts. Keys: 1, 2, r, up/down, enter; q stops without saving.
            Seed \(procedure.seed) (the order of the tones in each pair).
            """)
        var match = procedure
        var part: Int?
        while true {
            switch match.step {
            case .done:
                let result = match.result!
                console.say("Done: \(formatNumber(result.frequencyHz, roundedTo: 1)) Hz.")
                for warning in result.warnings { console.say("Flagged: \(warning)") }
                return result
            case .balance(let f):
                try match.answer(.level(try balance(f)))
            case .pair(let a, let b, let stage):
                if part != Self.part(stage) {
                    part = Self.part(stage)
                    console.say("Part \(Self.part(stage)) of 4: \(Self.describe(stage)).")
                }
                let pair = "pair \(match.choices.count + 1)"
                var answer: PitchMatch.Answer?
                while answer == nil {
                    try playPair(a, match.levels[a] ?? 0, b, match.levels[b] ?? 0, pair: pair)
                    console.ask("\(pair): which was closer to your tinnitus, 1 or 2? (r: again, q: stop) ")
                    switch console.key() {
                    case .character("1"): answer = .first
                    case .character("2"): answer = .second
                    case .quit: throw console.stopped("match")
                    default: break  // r or anything else: hear the pair again
                    }
                }
                try match.answer(answer!)
            }
        }
    }

    static func part(_ stage: PitchMatch.Stage) -> Int {
        switch stage { case .octave: 1; case .wholeTone: 2; case .octaveCheck: 3; case .repeat: 4 }
    }

    static func describe(_ stage: PitchMatch.Stage) -> String {
        switch stage {
        case .octave: "finding the octave"
        case .wholeTone: "narrowing down in whole tones"
        case .octaveCheck: "checking for octave confusion"
        case .repeat: "a few pairs again, to check consistency"
        }
    }

    /// A tone at `f` playing until enter; up/down move it by 1 dB, up to −6 dBFS (``LoudnessMatch/highestLevelDBFS``:
    /// its peak 3 dB below full scale). Returns the level, dB re the start.
    private func balance(_ f: Double) throws -> Double {
        var db = 0.0
        let highestDB = LoudnessMatch.highestLevelDBFS - levelDBFS
        let voice = try console.play(Sound(.tone(frequencyHz: f)), levelDBFS: levelDBFS, fadeInSeconds: 0.05)
        defer { console.engine.stop(voice, fadeSeconds: 0.05) }
        console.dropTypedKeys()
        while true {
            console.status("\(formatNumber(f.rounded())) Hz tone, \(formatSigned(db, digits: 0)) dB: up/down until as loud as your "
                           + "tinnitus, enter: done ")
            switch console.key() {
            case .up: db = min(highestDB, db + 1)
            case .down: db = max(-40, db - 1)
            case .enter: return db
            case .quit: throw console.stopped("match")
            default: continue
            }
            console.engine.setGain(voice, gainDB: db)
        }
    }

    /// Tone 1 (1 s), 0.5 s of silence, tone 2 (1 s), each with 10 ms raised-cosine ramps; the status line
    /// says which is playing. Keys pressed meanwhile are dropped (q stops).
    private func playPair(_ a: Double, _ levelA: Double, _ b: Double, _ levelB: Double, pair: String) throws {
        let start = console.frame(after: 0.1)
        for (k, (f, db)) in [(a, levelA), (b, levelB)].enumerated() {
            let tone = Sound(.generator(.tone(frequencyHz: f)), fades: Fades(inSeconds: 0.01, outSeconds: 0.01, endSeconds: 1))
            let at = start + k * Int(1.5 * ProcedureConsole.sampleRate)
            let voice = try console.play(tone, levelDBFS: levelDBFS, gainDB: db, atFrame: at)
            console.engine.stop(voice, fadeSeconds: 0, atFrame: at + Int(1.2 * ProcedureConsole.sampleRate))
        }
        console.status("\(pair): now playing tone 1 ")
        if console.waitForQuit(1.6) { throw console.stopped("match") }
        console.status("\(pair): now playing tone 2 ")
        if console.waitForQuit(1.1) { throw console.stopped("match") }
    }
}

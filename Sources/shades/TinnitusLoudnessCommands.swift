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

/// The options `loudness-match`, `mml` and `mril` share: the frequency, the ear, where the threshold comes from,
/// the simulated tinnitus and the output; `SeedHelp` words `--seed`'s help (the noise's, or none for a tone).
struct TinnitusOptions<SeedHelp: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: "The tinnitus frequency, 125 Hz … 16 kHz, e.g. 6kHz.")
    var frequency: String?

    @OptionGroup var match: FromMatchOption

    @OptionGroup var ear: EarOption<MaskingHelp.Ear>

    @Option(parsing: .unconditional, help: "The threshold at the frequency from this audiogram (`shades audiometry -o`; the better ear for both).")
    var audiogram: String?

    @Option(parsing: .unconditional, help: "The threshold at the frequency as a tone level in dBFS (instead of --audiogram).")
    var threshold: String?

    @Option(parsing: .unconditional, help: """
        Answer with a simulated tinnitus this many dB above the threshold (no audio): as loud as a tone there \
        (loudness-match), covered from there on (mml).
        """)
    var simulate: String?

    @OptionGroup var seed: SeedOption<SeedHelp>

    @OptionGroup var result: ResultOptions

    @OptionGroup var soundCard: OutputDeviceOption

    /// The threshold is the reference of the procedures' levels; the simulated tinnitus a listener.
    static var parameters: [ParameterID: String] { [.reference: "threshold", .listener: "simulate"] }

    func frequencyHz() throws -> Double {
        switch (frequency, match.fromMatch) {
        case (let text?, nil): return try ValueParsing.hertz(text)
        case (nil, let path?): return try matchedFrequency(path)
        case (nil, nil): throw ShadesError.usage("give the tinnitus frequency: --frequency F or --from-match FILE")
        default: throw ShadesError.usage("--frequency cannot be combined with --from-match (allowed: one or the other)")
        }
    }

    func ears() throws -> [Ears] { try ear.ears() }

    /// The seed of `mml`'s noise.
    func noiseSeed() throws -> UInt64 { try seed.value(default: 1) }

    /// Refuses what a simulated listener (`--simulate`) would ignore: the audio device and the noise's seed.
    func refuseSoundOptionsWhenSimulated() throws {
        guard simulate != nil else { return }
        try refuseSoundOptions([("--device", soundCard.device != nil), ("--seed", seed.seed != nil)], simulatedBy: "--simulate")
    }

    /// What `mml` and `mril` start from: the frequency, the layout and the threshold given, after checking `-o`
    /// and refusing what a simulated listener would ignore.
    func noiseProcedureInputs() throws -> (frequencyHz: Double, layout: ChannelLayout, thresholdDBFS: Double?) {
        let f = try frequencyHz()
        let layout = try self.layout()
        try checkOutput()
        let threshold = try givenThresholdDBFS(atHz: f)
        try refuseSoundOptionsWhenSimulated()
        return (f, layout, threshold)
    }

    /// The layout a sound is played in.
    func layout() throws -> ChannelLayout {
        let ears = try ears()
        return ears.count == 2 ? .diotic : ears[0] == .left ? .left : .right
    }

    /// The threshold at `frequencyHz` from `--threshold` or `--audiogram`, nil without either. For both ears it
    /// is the better (lower) of the ears the audiogram has thresholds for: the one ear's, said in a warning,
    /// when it holds one ear's.
    func givenThresholdDBFS(atHz frequencyHz: Double) throws -> Double? {
        if let threshold {
            guard audiogram == nil else { throw ShadesError.usage("--threshold cannot be combined with --audiogram (allowed: one or the other)") }
            let level = try ValueParsing.decibels(threshold, parameter: .reference)
            try Parameter(.reference, unit: .dBFS).check(level, within: ParameterRange(LevelPolicy.lowestRMSLevelDBFS...0, unit: .dBFS))
            return level
        }
        guard let audiogram else { return nil }
        let file = try readAudiogram(audiogram)
        let asked = try ears()
        let ears = try file.earsWithThresholds(asked)
        if ears.count < asked.count {
            printWarning("\(audiogram) has thresholds for the \(ears[0].rawValue) ear only: the threshold is the \(ears[0].rawValue) ear's")
        }
        var levels: [Double] = []
        for ear in ears { levels.append(try file.thresholdDBFS(atHz: frequencyHz, ear: ear)) }
        return levels.min()
    }

    func write<T: Encodable>(_ result: T, summary: String) throws { try self.result.write(result, summary: [summary]) }

    /// "12dB" → 12 (a simulated tinnitus, dB above the threshold).
    func simulatedAbove(_ text: String, threshold: Double?) throws -> Double {
        guard let threshold else { throw ShadesError.usage("--simulate needs the threshold: --threshold LEVEL or --audiogram FILE") }
        let above = try ValueParsing.decibels(text, parameter: .listener)
        // The simulated tinnitus is a level: from the lowest to 0 dBFS.
        try Parameter(.listener, unit: .decibels).check(above, within: ParameterRange(LevelPolicy.lowestRMSLevelDBFS - threshold...(-threshold), unit: .decibels),
                                                        note: "(re the threshold, \(formatNumber(threshold)) dBFS: levels \(formatNumber(LevelPolicy.lowestRMSLevelDBFS)) … 0 dBFS)")
        return threshold + above
    }
}

/// `shades loudness-match`: the tinnitus loudness as dB above the threshold at its frequency.
struct LoudnessMatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loudness-match",
        abstract: "Match the tinnitus loudness with a tone at its frequency: dB above the threshold there (dB SL), live or simulated.",
        usage: "shades loudness-match --frequency <f> [--threshold <dBFS>] [<options>]",
        discussion: """
            A tone at the tinnitus frequency plays from 10 dB above the threshold; up arrow when it is softer than \
            the tinnitus, down arrow when louder (steps of --step dB), enter when as loud. The threshold comes from \
            --audiogram (its calibration for dB HL), --threshold, or is measured first (audiometry at the \
            frequency). \(MaskingHelp.earsOfAnAudiogram) The JSON (levelDBFS, sensationLevelDB) is read by \
            `stimuli residual-inhibition --reference-from`. \
            Examples:
              shades loudness-match --frequency 6kHz --audiogram audiogram.json \\
                --ear right -o loudness.json
              shades loudness-match --frequency 6kHz --threshold -80 --simulate 12dB --json
            """)

    @OptionGroup var tinnitus: TinnitusOptions<MaskingHelp.NoSeed>

    @Option(parsing: .unconditional, help: "Step of the tone, 1 or 2 dB.")
    var step: String = "2"

    func run() throws {
        let f = try tinnitus.frequencyHz()
        let layout = try tinnitus.layout()
        let stepDB = try ValueParsing.decibels(step, parameter: .step)
        try tinnitus.refuseSoundOptionsWhenSimulated()
        if tinnitus.seed.seed != nil { throw ShadesError.usage("--seed applies to mml's noise: loudness-match plays a tone (allowed: --seed with mml)") }
        try tinnitus.checkOutput()
        var threshold = try tinnitus.givenThresholdDBFS(atHz: f)
        let result: LoudnessMatch.Result
        if let simulate = tinnitus.simulate {
            let loudness = try tinnitus.simulatedAbove(simulate, threshold: threshold)
            result = SimulatedTinnitus(loudnessDBFS: loudness).run(try LoudnessMatch(frequencyHz: f, thresholdDBFS: threshold!, stepDB: stepDB))
        } else {
            _ = try LoudnessMatch(frequencyHz: f, thresholdDBFS: threshold ?? -60, stepDB: stepDB)   // the values, before the terminal
            let console = try ProcedureConsole(device: tinnitus.soundCard.device, procedure: "loudness-match")
            defer { console.close() }
            if threshold == nil { threshold = try measureThreshold(atHz: f, ears: try tinnitus.ears(), console: console) }
            result = try matchLive(try LoudnessMatch(frequencyHz: f, thresholdDBFS: threshold!, stepDB: stepDB), layout: layout, console: console)
        }
        let tone = "a \(formatNumber(f, roundedTo: 2)) Hz tone"
        let summary = result.levelDBFS.map { level in
            "tinnitus as loud as \(tone) at \(formatNumber(level)) dBFS: "
                + "\(formatSigned(level - result.thresholdDBFS, digits: 1)) dB above the threshold (\(formatNumber(result.thresholdDBFS)) dBFS)"
        } ?? "the tinnitus was louder than \(tone) at the highest level, \(formatNumber(LoudnessMatch.highestLevelDBFS)) dBFS: no match"
        try tinnitus.write(result, summary: summary)
    }

    /// The tone plays on; up/down move it a step, enter ends.
    private func matchLive(_ procedure: LoudnessMatch, layout: ChannelLayout, console: ProcedureConsole) throws -> LoudnessMatch.Result {
        console.say("""
            Loudness matching: a steady tone at your tinnitus frequency. Make it exactly as loud as your tinnitus: \
            up arrow if the tone is softer than your tinnitus, down arrow if it is louder, enter when they are \
            equally loud. q stops without saving.
            """)
        var match = procedure
        let start = match.levelDBFS!
        let voice = try console.play(Sound(.generator(.tone(frequencyHz: match.frequencyHz)), channels: layout), levelDBFS: start, fadeInSeconds: 0.1)
        defer { console.engine.stop(voice, fadeSeconds: 0.1) }
        while let level = match.levelDBFS {
            console.engine.setGain(voice, gainDB: level - start)
            console.ask("tone \(formatSigned(level - match.thresholdDBFS, digits: 0)) dB above your threshold; tone softer: up, louder: down, equal: enter ")
            switch console.key() {
            case .up: match.answer(.softer)
            case .down: match.answer(.louder)
            case .enter: match.answer(.equal)
            case .quit: throw console.stopped("loudness-match")
            default: continue
            }
        }
        console.say("Done.")
        return match.result!
    }
}

/// `shades mml`: the minimum masking level of the tinnitus.
struct MMLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mml",
        abstract: "Find the minimum masking level: band noise at the tinnitus frequency rising until the tinnitus is no longer heard.",
        usage: "shades mml --frequency <f> [--width <octaves>] [<options>] [-o <file>]",
        discussion: """
            Narrow-band noise centred on the tinnitus frequency (--width octaves) plays from the threshold (or \
            --start-level) and rises in 2 dB steps; after each step say whether you still hear your tinnitus \
            (y or n). The first level at which it is covered is the MML; the JSON is read by `stimuli \
            residual-inhibition --reference-from` (its masker at --above dB over the MML, 10 in clinical \
            protocols). \(MaskingHelp.earsOfAnAudiogram) \
            Examples:
              shades mml --frequency 6kHz --width 1 --audiogram audiogram.json -o mml.json
              shades mml --frequency 6kHz --threshold -80 --simulate 20dB --json
            """)

    @OptionGroup var tinnitus: TinnitusOptions<SetHelp.Seed>

    @Option(parsing: .unconditional, help: "Noise band width in octaves, 0.1 … 3.")
    var width: String?

    @OptionGroup var startLevel: StartLevelOption<MaskingHelp.StartLevel>

    func run() throws {
        let (f, layout, threshold) = try tinnitus.noiseProcedureInputs()
        let width = try optionalNumber(self.width, .width) ?? 1
        let procedure = try MinimumMaskingLevel(frequencyHz: f, widthOctaves: width, thresholdDBFS: threshold,
                                                startDBFS: try startLevel.decibels())
        let result: MinimumMaskingLevel.Result
        if let simulate = tinnitus.simulate {
            result = SimulatedTinnitus(maskingLevelDBFS: try tinnitus.simulatedAbove(simulate, threshold: threshold)).run(procedure)
        } else {
            let console = try ProcedureConsole(device: tinnitus.soundCard.device, procedure: "mml")
            defer { console.close() }
            result = try findLive(procedure, layout: layout, console: console)
        }
        let summary = result.levelDBFS.map { level in
            "minimum masking level at \(formatNumber(f, roundedTo: 2)) Hz (\(formatNumber(width)) octave band): \(formatNumber(level)) dBFS"
                + (result.sensationLevelDB.map { ", \(formatSigned($0, digits: 1)) dB above the threshold" } ?? "")
        } ?? "the tinnitus was still heard at the highest level, \(formatNumber(MinimumMaskingLevel.highestLevelDBFS)) dBFS: no masking level"
        try tinnitus.write(result, summary: summary)
    }

    /// How long each level of the noise plays before the question, s.
    static let listeningSeconds = 1.0

    /// The noise plays on and rises a step after each "yes".
    private func findLive(_ procedure: MinimumMaskingLevel, layout: ChannelLayout, console: ProcedureConsole) throws -> MinimumMaskingLevel.Result {
        console.say("""
            Minimum masking level: a noise around your tinnitus frequency, getting louder step by step. After each \
            step, press y if you still hear your tinnitus and n when the noise covers it. q stops without saving.
            """)
        var mml = procedure
        let start = mml.levelDBFS!
        let noise = Sound(.generator(.narrowBandNoise(centreHz: mml.frequencyHz, widthOctaves: mml.widthOctaves)), channels: layout,
                          seed: try tinnitus.noiseSeed())
        let voice = try console.play(noise, levelDBFS: start, fadeInSeconds: 0.3)
        defer { console.engine.stop(voice, fadeSeconds: 0.3) }
        while let level = mml.levelDBFS {
            console.engine.setGain(voice, gainDB: level - start, rampSeconds: 0.1)
            // The new level is heard for a moment before the question: keys pressed meanwhile are dropped.
            console.status("noise at step \(mml.trials.count + 1): listen ")
            if console.waitForQuit(Self.listeningSeconds) { throw console.stopped("mml") }
            console.ask("noise at step \(mml.trials.count + 1): do you still hear your tinnitus? y or n ")
            switch console.key(within: .infinity, accepting: { [.quit, .character("y"), .character("n")].contains($0) }) {
            case .character("y"): mml.answer(tinnitusHeard: true)
            case .character("n"): mml.answer(tinnitusHeard: false)
            default: throw console.stopped("mml")
            }
        }
        console.say("Done.")
        return mml.result!
    }
}

/// The threshold at `frequencyHz` measured first (audiometry at one frequency, dB re full scale): the lower of `ears`.
func measureThreshold(atHz frequencyHz: Double, ears: [Ears], console: ProcedureConsole) throws -> Double {
    console.say("First your threshold at \(formatNumber(frequencyHz, roundedTo: 2)) Hz.")
    let audiogram = try runAudiometry(try Audiometry(ears: ears, frequenciesHz: [frequencyHz], scale: .fullScale), console: console,
                                      seed: UInt64(UInt32.random(in: 0 ... .max)))
    let levels = ears.compactMap { ear in audiogram.thresholds(ear: ear).first?.thresholdDB }
    guard let threshold = levels.min() else {
        throw ShadesError.runtime("no threshold at \(formatNumber(frequencyHz, roundedTo: 2)) Hz: the tone was not heard at the highest level")
    }
    return threshold
}

import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures

/// `shades mril`: the minimum residual-inhibition level of the tinnitus (and its MML on the way).
struct MRILCommand: ParsableCommand, ParameterOptions {
    static let configuration = CommandConfiguration(
        commandName: "mril",
        abstract: "Find the minimum residual-inhibition level: band-noise bursts rising until the tinnitus is reduced in the silences between them.",
        usage: "shades mril --frequency <f> [--width <octaves>] [<options>] [-o <file>]",
        discussion: """
            Narrow-band noise centred on the tinnitus frequency (--width octaves) plays as repeated --burst long \
            bursts --silence apart (--envelope triangular: rising over the first half and falling over the \
            second, as effective as trapezoidal and more comfortable in Front. Audiol. Otol. 2024; trapezoidal: \
            --ramp rise and fall), from the threshold (or --start-level), rising in --step dB steps (Fournier et al. \
            2018, Trends Hear 22). The burst and silence times, the step and the start are Shades' own: the papers' \
            abstracts do not give them (docs/procedures.md). First, after each step, say whether you still hear \
            your tinnitus during the bursts (y or n): \
            the first level that covers it is the MML. Then, from there on, say how your tinnitus is in the \
            silences: u unchanged, r reduced, g gone. The first level with r or g is the MRIL, the first with g \
            the complete MRIL. Levels are the noise's RMS at a burst's peak, dBFS. The JSON (levelDBFS: the MRIL) \
            is read by `stimuli residual-inhibition --reference-from`. \
            \(MaskingHelp.earsOfAnAudiogram) \
            Examples:
              shades mril --frequency 6kHz --audiogram audiogram.json -o mril.json
              shades mril --frequency 6kHz --threshold -80 --simulate 20dB \\
                --simulate-mril 6dB --json
            """)

    @OptionGroup var tinnitus: TinnitusOptions<SetHelp.Seed>

    @Option(parsing: .unconditional, help: "Noise band width in octaves, 0.1 … 3 (default 1, the band of Bourez, Fournier & Noreña's pulsed noises).")
    var width: String?

    @OptionGroup var startLevel: StartLevelOption<MaskingHelp.StartLevel>

    @Option(parsing: .unconditional, help: "Step of the level, 1, 2 or 5 dB (default 2, below the 3 dB test–retest difference of Front. Audiol. Otol. 2024).")
    var step: String = "2"

    @Option(parsing: .unconditional, help: "Length of each burst, 0.5 … 10 s (default \(Self.standard.burst), Shades' own).")
    var burst: String = Self.standard.burst

    @Option(parsing: .unconditional, help: "Silence between the bursts, 0.5 … 10 s (default \(Self.standard.silence), Shades' own).")
    var silence: String = Self.standard.silence

    @Option(parsing: .unconditional, help: "triangular or trapezoidal (default \(Self.standard.envelope)).")
    var envelope: String = Self.standard.envelope

    @Option(parsing: .unconditional, help: "Rise and fall of a trapezoidal burst, 10 ms … half the burst (default \(Self.standard.ramp)).")
    var ramp: String = Self.standard.ramp

    @Option(parsing: .unconditional, help: """
        With --simulate: the simulated tinnitus is reduced in the silences from this many dB above its masking \
        level (default 6dB).
        """)
    var simulateMril: String?

    @Option(parsing: .unconditional, help: """
        With --simulate: the simulated tinnitus is gone in the silences from this many dB above its masking level \
        (default: never).
        """)
    var simulateComplete: String?

    /// The flags' defaults, from ``MinimumResidualInhibitionLevel/Bursts/standard`` (one definition).
    static let standard = {
        let bursts = MinimumResidualInhibitionLevel.Bursts.standard
        return (burst: "\(formatNumber(bursts.burstSeconds))s", silence: "\(formatNumber(bursts.silenceSeconds))s",
                envelope: bursts.envelope.rawValue, ramp: "\(formatNumber(bursts.rampSeconds * 1000))ms")
    }()

    static let parameters: [ParameterID: String] = [.width: "width", .mrilStep: "step", .burst: "burst", .burstSilence: "silence",
                                                     .burstEnvelope: "envelope", .burstRamp: "ramp", .simulatedInhibition: "simulateMril",
                                                     .simulatedCompleteInhibition: "simulateComplete"]

    func run() throws {
        let (f, layout, threshold) = try tinnitus.noiseProcedureInputs()
        if tinnitus.simulate == nil, simulateMril != nil || simulateComplete != nil {
            throw ShadesError.usage("--simulate-mril and --simulate-complete need --simulate (allowed: with a simulated listener)")
        }
        guard let envelope = MinimumResidualInhibitionLevel.Envelope(rawValue: envelope.lowercased()) else {
            throw ShadesError(parameter: .burstEnvelope, value: "'\(self.envelope)'", problem: "is not an envelope", allowed: "triangular or trapezoidal")
        }
        let bursts = MinimumResidualInhibitionLevel.Bursts(burstSeconds: try ValueParsing.seconds(burst, parameter: .burst),
                                                           silenceSeconds: try ValueParsing.seconds(silence, parameter: .burstSilence),
                                                           envelope: envelope, rampSeconds: try ValueParsing.seconds(ramp, parameter: .burstRamp))
        let width = try optionalNumber(self.width, .width) ?? 1
        let procedure = try MinimumResidualInhibitionLevel(frequencyHz: f, widthOctaves: width, thresholdDBFS: threshold,
                                                           startDBFS: try startLevel.decibels(),
                                                           stepDB: try ValueParsing.decibels(step, parameter: .mrilStep), bursts: bursts)
        let result: MinimumResidualInhibitionLevel.Result
        if let simulate = tinnitus.simulate {
            let masking = try tinnitus.simulatedAbove(simulate, threshold: threshold)
            func above(_ text: String?, _ parameter: ParameterID, default value: Double?) throws -> Double? {
                guard let text else { return value }
                let db = try ValueParsing.decibels(text, parameter: parameter)
                try Parameter(parameter, unit: .decibels).check(db, within: ParameterRange(0...60, unit: .decibels), note: "(above the masking level)")
                return db
            }
            let partial = try above(simulateMril, .simulatedInhibition, default: 6)!
            let complete = try above(simulateComplete, .simulatedCompleteInhibition, default: nil)
            result = SimulatedInhibition(maskingLevelDBFS: masking, inhibitionLevelDBFS: masking + partial,
                                         completeLevelDBFS: complete.map { masking + $0 }).run(procedure)
        } else {
            let console = try ProcedureConsole(device: tinnitus.soundCard.device, procedure: "mril")
            defer { console.close() }
            result = try findLive(procedure, layout: layout, console: console)
        }
        let at = "at \(formatNumber(f, roundedTo: 2)) Hz (\(formatNumber(width)) octave band)"
        let summary: String
        if let level = result.levelDBFS {
            summary = "minimum residual-inhibition level \(at): \(formatNumber(level)) dBFS"
                + (result.sensationLevelDB.map { ", \(formatSigned($0, digits: 1)) dB above the threshold" } ?? "")
                + (result.aboveMaskingDB.map { ", \(formatSigned($0, digits: 1)) dB above the MML" } ?? "")
                + (result.completeLevelDBFS.map { "; complete at \(formatNumber($0)) dBFS" } ?? "; not complete up to the highest level")
        } else if let masking = result.maskingLevelDBFS {
            summary = "no residual inhibition \(at) up to \(formatNumber(MinimumResidualInhibitionLevel.highestLevelDBFS)) dBFS (MML \(formatNumber(masking)) dBFS)"
        } else {
            summary = "the tinnitus was still heard during the bursts at the highest level, \(formatNumber(MinimumResidualInhibitionLevel.highestLevelDBFS)) dBFS: no MML, no MRIL"
        }
        try tinnitus.write(result, summary: summary)
    }

    /// The bursts play on; after each full burst and silence the question of the stage is asked.
    private func findLive(_ procedure: MinimumResidualInhibitionLevel, layout: ChannelLayout,
                          console: ProcedureConsole) throws -> MinimumResidualInhibitionLevel.Result {
        console.say("""
            Minimum residual-inhibition level: bursts of noise around your tinnitus frequency with silences between \
            them, getting louder step by step. First press y if you still hear your tinnitus during the bursts, n \
            when they cover it. Then listen to the silences: u if your tinnitus is unchanged there, r if it is \
            reduced, g if it is gone. q stops without saving.
            """)
        var mril = procedure
        let start = mril.levelDBFS!
        let noise = Sound(.generator(.narrowBandNoise(centreHz: mril.frequencyHz, widthOctaves: mril.widthOctaves)),
                          pulses: mril.bursts.pulses, channels: layout, seed: try tinnitus.noiseSeed())
        let voice = try console.play(noise, levelDBFS: start)
        defer { console.engine.stop(voice, fadeSeconds: 0.1) }
        let cycle = mril.bursts.burstSeconds + mril.bursts.silenceSeconds
        while let level = mril.levelDBFS {
            console.engine.setGain(voice, gainDB: level - start, rampSeconds: 0.1)
            console.status("bursts at step \(mril.trials.count + 1): listen ")
            if console.waitForQuit(cycle) { throw console.stopped("mril") }
            switch mril.stage {
            case .masking:
                console.ask("step \(mril.trials.count + 1): do you still hear your tinnitus during the bursts? y or n ")
                switch console.key(within: .infinity, accepting: { [.quit, .character("y"), .character("n")].contains($0) }) {
                case .character("y"): mril.answer(tinnitusHeard: true)
                case .character("n"): mril.answer(tinnitusHeard: false)
                default: throw console.stopped("mril")
                }
            case .inhibition:
                console.ask("step \(mril.trials.count + 1): your tinnitus in the silences? u unchanged, r reduced, g gone ")
                switch console.key(within: .infinity, accepting: { [.quit, .character("u"), .character("r"), .character("g")].contains($0) }) {
                case .character("u"): mril.answer(silence: .unchanged)
                case .character("r"): mril.answer(silence: .reduced)
                case .character("g"): mril.answer(silence: .gone)
                default: throw console.stopped("mril")
                }
            }
        }
        console.say("Done.")
        return mril.result!
    }
}

extension ParameterID {
    /// `mril --simulate-mril` and `--simulate-complete`: a simulated listener's inhibition levels.
    static let simulatedInhibition = ParameterID(rawValue: "simulated inhibition")
    static let simulatedCompleteInhibition = ParameterID(rawValue: "simulated complete inhibition")
}

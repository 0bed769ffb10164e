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

/// `shades audiometry`: pure-tone thresholds per ear (modified Hughson–Westlake, ASHA 2005) in the terminal,
/// or answered by a simulated listener.
struct AudiometryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiometry",
        abstract: "Measure hearing thresholds per ear with pulsed tones (modified Hughson-Westlake), live or simulated.",
        usage: "shades audiometry [--frequencies <list>] [<options>] -o <file>",
        discussion: """
            Each tone is three 200 ms pulses (25 ms ramps) in one ear; press space when you hear it. It starts \
            audible, goes 10 dB down after each response and 5 dB up after each miss; the threshold is the \
            lowest level heard on at least 2 of 3 ascending presentations (ASHA 2005). 1 kHz first, then \
            upwards, then the frequencies below 1 kHz. Levels are dB HL with --calibration (a JSON file with, \
            per frequency, the level in dBFS of 0 dB HL through these headphones: {"headphones": "…", \
            "referenceDBFS": {"1000": -95, …}}), else dB re full scale (the tone's RMS in dBFS; it depends on \
            the volume setting, so keep it fixed). The JSON has, per ear and frequency, thresholdDB and every \
            trial; `loudness-match --audiogram`, `render --audiogram` and `catalogue build --audiogram` read it. \
            Examples:
              shades audiometry --ear right -o audiogram.json
              shades audiometry --simulate-audiogram \\
                250:10,500:15,1000:20,2000:35,4000:50,8000:60 \\
                --false-alarms 0.05 --misses 0.05
            """)

    @OptionGroup var ear: EarOption<AudiometryHelp.Ear>

    @OptionGroup var frequencies: AudiometricFrequencyOptions<AudiometryHelp.Frequencies>

    @Option(parsing: .unconditional, help: "Calibration JSON of the headphones (levels in dB HL); without it, dB re full scale.")
    var calibration: String?

    @OptionGroup var startLevel: StartLevelOption<AudiometryHelp.StartLevel>

    @Option(name: .customLong("simulate-audiogram"), parsing: .unconditional, help: "Answer with a simulated listener of these thresholds in dB HL, e.g. 250:10,1000:20,4000:50 (no audio).")
    var simulateAudiogram: String?

    @Option(name: .customLong("false-alarms"), parsing: .unconditional, help: "With --simulate-audiogram: probability of a response to an inaudible tone, 0 … 0.5.")
    var falseAlarms: String?

    @Option(parsing: .unconditional, help: "With --simulate-audiogram: probability of no response to an audible tone, 0 … 0.5.")
    var misses: String?

    @OptionGroup var seed: SeedOption<ProcedureHelp.Seed>

    @OptionGroup var result: ResultOptions

    @OptionGroup var soundCard: OutputDeviceOption

    func run() throws {
        let ears = try ear.ears()
        let list = try frequencies.list()
        let calibrationFile = try calibration.map(readCalibration)
        let start = try startLevel.decibels()
        try result.checkOutput(inputs: calibration.map { [CommandInput($0, name: "--calibration")] } ?? [])
        let seed = try seed.valueOrFresh()

        let audiogram: Audiogram
        if let simulateAudiogram {
            guard calibration == nil else { throw ShadesError.usage("--simulate-audiogram answers in dB HL without a sound: --calibration does not apply") }
            try refuseSoundOptions([("--device", soundCard.device != nil)], simulatedBy: "--simulate-audiogram")
            var listener = try SimulatedAudiometryListener(thresholds: try Self.parseThresholds(simulateAudiogram),
                                                           falseAlarmProbability: try optionalNumber(falseAlarms, .falseAlarms) ?? 0,
                                                           missProbability: try optionalNumber(misses, .misses) ?? 0, seed: seed)
            audiogram = listener.run(try Audiometry(ears: ears, frequenciesHz: list, scale: .hearingLevel, startLevelDB: start))
        } else {
            guard falseAlarms == nil && misses == nil else { throw ShadesError.usage("--false-alarms and --misses apply to --simulate-audiogram") }
            let procedure = try Audiometry(ears: ears, frequenciesHz: list, scale: calibrationFile == nil ? .fullScale : .hearingLevel,
                                           calibration: calibrationFile, startLevelDB: start)
            let console = try ProcedureConsole(device: soundCard.device, procedure: "audiometry")
            defer { console.close() }
            audiogram = try runAudiometry(procedure, console: console, seed: seed)
        }
        try result.write(audiogram, summary: [Self.table(audiogram, simulated: simulateAudiogram != nil)])
    }

    /// "250:10,1kHz:20" → [(250, 10), (1000, 20)].
    static func parseThresholds(_ text: String) throws -> [(frequencyHz: Double, thresholdDB: Double)] {
        try text.split(separator: ",").map { entry in
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let f = try? ValueParsing.hertz(String(parts[0]).trimmed, parameter: .simulatedAudiogram),
                  let db = try? ValueParsing.decibels(String(parts[1]).trimmed, parameter: .simulatedAudiogram), f > 0, (-20...130).contains(db) else {
                throw ShadesError(parameter: .simulatedAudiogram, value: "'\(entry)'", problem: "is not a frequency:threshold pair",
                                  allowed: "pairs such as 1000:20 or 4kHz:50, thresholds -20 … 130 dB HL, separated by commas")
            }
            return (f, db)
        }
    }

    /// The audiogram as a table: a row per ear, a column per frequency, in blocks of at most 10 frequencies
    /// (80 columns).
    static func table(_ audiogram: Audiogram, simulated: Bool) -> String {
        let frequencies = Array(Set(((audiogram.left ?? []) + (audiogram.right ?? [])).map(\.frequencyHz))).sorted()
        var lines = ["audiogram, \(audiogram.scale.rawValue)\(simulated ? " (simulated listener)" : ""):"]
        for start in stride(from: 0, to: frequencies.count, by: 10) {
            let block = frequencies[start..<min(start + 10, frequencies.count)]
            lines.append("  Hz     " + block.map { formatNumber($0).padded(to: 7) }.joined())
            for (name, row) in [("right", audiogram.right), ("left", audiogram.left)] {
                guard let row else { continue }
                lines.append("  " + name.padded(to: 7) + block.map { f in
                    (row.first { $0.frequencyHz == f }?.thresholdDB.map { formatNumber($0) } ?? "-").padded(to: 7)
                }.joined())
            }
        }
        for (name, row) in [("right", audiogram.right), ("left", audiogram.left)] {
            lines += (row ?? []).compactMap { t in t.note.map { "  \(name) \(formatNumber(t.frequencyHz)) Hz: \($0)" } }
        }
        return lines.joined(separator: "\n")
    }
}

/// The procedure in the terminal: a pause of 1.5 … 3 s (drawn from the seed, so the listener cannot predict
/// the tone), the pulsed tone, and a response window from its start to 1 s after its end. Keys pressed
/// outside a window answer nothing and are dropped.
func runAudiometry(_ procedure: Audiometry, console: ProcedureConsole, seed: UInt64) throws -> Audiogram {
    console.say("""
        Audiometry: the quietest tones you can hear, ear by ear.
        You will hear short beeping tones, sometimes very faint, in one ear at a time. Press space (or enter) \
        every time you hear one, however faint, as soon as you hear it. Keep the volume where it is.
        Keys: space or enter when you hear a tone; q stops without saving.
        """)
    console.ask("Press space to begin. ")
    if console.key(within: .infinity, accepting: { [.quit, .space, .enter].contains($0) }) == .quit { throw console.stopped("audiometry") }
    var audiometry = procedure
    var random = SplitMix64(seed: seed)
    while let presentation = audiometry.presentation {
        let (ear, frequency, count) = audiometry.progress
        let prefix = "\(ear.rawValue) ear, \(formatNumber(presentation.frequencyHz)) Hz (frequency \(frequency) of \(count))"
        console.status("\(prefix): listen; space when you hear a tone ")
        // The pause: keys pressed in it are not answers.
        if console.waitForQuit(1.5 + 1.5 * random.nextUnit()) { throw console.stopped("audiometry") }
        // The tone lasts 1 s (three pulses); the window 1 s more.
        console.dropTypedKeys()
        let voice = try console.play(Audiometry.tone(for: presentation), levelDBFS: presentation.levelDBFS!)
        let key = console.key(within: 2, accepting: { [.quit, .space, .enter].contains($0) })
        console.engine.stop(voice, fadeSeconds: 0.02)
        if key == .quit { throw console.stopped("audiometry") }
        let heard = key != nil
        if heard { console.status("\(prefix): heard ") }
        audiometry.answer(heard: heard)
        if console.waitForQuit(0.3) { throw console.stopped("audiometry") }
    }
    console.say("Done.")
    return audiometry.result!
}

import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesAudioDevice
import ShadesPlatform

/// `shades meter`: a live sound level meter on an input device (a microphone; a sound server's monitor).
struct MeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Measure the sound level of an input device live: LAeq, LAFmax, LCpeak every second, dB SPL and noise dose with a calibration.",
        usage: "shades meter [--duration <duration>] [--calibration <cal>] [<options>]",
        discussion: """
            Records from the input device (PortAudio) until --duration or Ctrl-C and prints, once a second, the \
            RMS, LAeq (A-weighted equivalent level), LAFmax (largest A-weighted fast level) and LCpeak \
            (C-weighted peak) of the loudest channel, with the accumulators `shades analyze` uses: in dBFS, \
            and with --calibration in dB SPL with the NIOSH daily noise dose (85 dBA for 8 h, 3 dB exchange) \
            of the time measured. --json prints the per-second series and the totals as JSON instead; -o \
            also saves the recording (WAV float or FLAC 24-bit). \
            Examples:
              shades meter --duration 30s
              shades meter --calibration 94dB@-20dBFS --json -o street.wav --duration 5m
              shades meter --device list
            """)

    @Option(parsing: .unconditional, help: "Input device: an index or part of a name from `--device list`; 'list' lists them.")
    var device: String?

    @OptionGroup var length: DurationOption<MeterHelp.Duration>

    @OptionGroup var calibration: SPLCalibrationOption

    @OptionGroup var sampleRate: RateOption<MeterHelp.Rate>

    @Option(parsing: .unconditional, help: "Channels to record, 1 … 64 (default: up to 2, as the device has).")
    var channels: String?

    @OptionGroup var printing: JSONOption

    @Option(name: .shortAndLong, parsing: .unconditional, help: "Also save the recording to this file (.wav: float, .flac: 24-bit).")
    var output: String?

    /// Channels a recording may have.
    static let recordedChannels = Parameter(.channels, range: ParameterRange(1...64, wholeNumbers: true))

    func run() throws {
        if device?.lowercased() == "list" {
            let devices = try AudioInput.devices()
            guard !devices.isEmpty else {
                throw ShadesError.runtime("no audio input device found: no sound card with an input and no audio server reachable (for PulseAudio set XDG_RUNTIME_DIR or PULSE_SERVER)")
            }
            for d in devices {
                print("\(d.index)\(d.isDefault ? "*" : " ") \(d.name) (\(d.hostAPI), \(d.maximumInputChannels) input channels, \(Int(d.defaultSampleRate)) Hz)")
            }
            return
        }
        let rate = try sampleRate.hertz() ?? 48_000
        try Parameter.rate.check(rate)
        let seconds = try length.duration.map { try ValueParsing.seconds($0) }
        if let seconds { try Parameter.duration.check(seconds) }
        let channels = try self.channels.map { try ValueParsing.count($0, Self.recordedChannels) }
        let calibration = try self.calibration.parsed()
        if let output { try CommandPaths.checkOutput(output, inputs: []) }
        let format = try output.map { path in
            let container = try Container(path: path)
            return try AudioFileFormat(container: container, sampleFormat: container == .flac ? .s24 : .f32)
        }
        let choice = OutputDeviceChoice(flag: device)
        let input = try AudioInput(device: choice, channelCount: channels, sampleRate: rate)
        var session = MeterSession(input: input, meter: try SoundLevelMeter(sampleRate: rate, channelCount: input.channelCount, calibration: calibration),
                                   frames: seconds.map { Int(($0 * rate).rounded()) }, printsReadings: !printing.json)
        if let output, let format {
            try AtomicFile.write(to: output) { (file: AtomicFile.Temporary) throws(ShadesError) in
                let writer = try AudioFileOutput(file: file, sampleRate: Int(rate), channelCount: input.channelCount, format: format,
                                                 frameCount: session.frames ?? Int(600 * rate), comment: "shades meter, \(input.device.name)")
                try session.run(writer: writer)
                try writer.close()
            }
        } else {
            try session.run(writer: nil)
        }
        if printing.json {
            let report = MeterReport(device: input.device.name, sampleRate: rate, channels: input.channelCount, calibration: calibration,
                                     seconds: session.readings, total: session.meter.total, inputOverflows: input.overflows,
                                     droppedFrames: input.droppedFrames)
            print(String(decoding: try prettyJSON(report), as: UTF8.self))
        } else {
            print("total " + MeterSession.line(session.meter.total, calibrated: calibration != nil))
        }
        if input.overflows > 0 || input.droppedFrames > 0 {
            printWarning("the recording has gaps: \(input.overflows) input overflows, \(input.droppedFrames) frames dropped")
        }
    }
}

/// What `shades meter --json` prints.
private struct MeterReport: Encodable {
    let device: String
    let sampleRate: Double
    let channels: Int
    let calibration: SPLCalibration?
    /// One reading per whole second.
    let seconds: [SoundLevelMeter.Reading]
    /// Everything recorded (a last part second included).
    let total: SoundLevelMeter.Reading
    let inputOverflows: Int
    let droppedFrames: Int
}

/// The control thread while metering: frames from the input's ring into the meter (and the file), a line
/// a second.
private struct MeterSession {
    let input: AudioInput
    var meter: SoundLevelMeter
    /// Frames to record, nil until interrupted.
    let frames: Int?
    let printsReadings: Bool
    var readings: [SoundLevelMeter.Reading] = []

    init(input: AudioInput, meter: SoundLevelMeter, frames: Int?, printsReadings: Bool) {
        (self.input, self.meter, self.frames, self.printsReadings) = (input, meter, frames, printsReadings)
    }

    mutating func run(writer: AudioFileOutput?) throws(ShadesError) {
        // SIGINT/SIGTERM/SIGHUP end the loop; the totals are still written.
        InterruptHandling.handOverToCommand()
        let buffer = AudioBuffer(channelCount: input.channelCount, frameCapacity: 8_192)
        let interleaved = UnsafeMutableBufferPointer<Float>.allocate(capacity: 8_192 * input.channelCount)
        defer { interleaved.deallocate() }
        var recorded = 0
        try input.start()
        printToStandardError("metering '\(input.device.name)' (\(input.device.hostAPI)), \(input.channelCount) channels at \(Int(input.sampleRate)) Hz; Ctrl-C stops\n")
        while !InterruptHandling.takeRequest() && recorded < (frames ?? .max) {
            let count = min(input.read(into: buffer), (frames ?? .max) - recorded)
            if count == 0 { usleep(20_000); continue }
            buffer.withBlock(frames: 0..<count) { meter.add($0) }
            if let writer {
                buffer.withBlock(frames: 0..<count) { block in
                    Interleave.frames((0..<block.channelCount).map { UnsafePointer(block.channel($0).baseAddress) }, frames: count,
                                      into: interleaved.baseAddress!)
                }
                try writer.write(UnsafeBufferPointer(rebasing: interleaved[0..<(count * input.channelCount)]))
            }
            recorded += count
            for reading in meter.takeReadings() {
                readings.append(reading)
                let text = String(format: "%4.0f s ", reading.startSeconds + reading.durationSeconds) + Self.line(reading, calibrated: meter.calibration != nil)
                if printsReadings { print(text) } else { printToStandardError(text + "\n") }
            }
        }
        input.stop()
    }

    /// "RMS -20.0  LAeq -20.0  LAFmax -19.9  LCpeak -17.0 dBFS", with a calibration in dB SPL and the dose.
    static func line(_ r: SoundLevelMeter.Reading, calibrated: Bool) -> String {
        func db(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-inf" }
        var text = "RMS \(db(r.rmsDBFS))  LAeq \(db(r.laeqDBFS))  LAFmax \(db(r.lafmaxDBFS))  LCpeak \(db(r.lcpeakDBFS)) dBFS"
        if calibrated {
            text += ";  LAeq \(db(r.laeqDBA)) dB(A)  LAFmax \(db(r.lafmaxDBA)) dB(A)  LCpeak \(db(r.lcpeakDBC)) dB(C) SPL"
            if let dose = r.doseNIOSHPercent { text += "  dose \(String(format: "%.3g", dose)) %" }
        }
        return text
    }
}

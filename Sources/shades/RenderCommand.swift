import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

extension ChannelLayout: ExpressibleByArgument {}
extension SampleFormat: ExpressibleByArgument {}
extension AmplitudeModulationLevel: ExpressibleByArgument {}

/// `shades render SOURCE …`: one sound to one file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a noise colour, a tone, a therapy stimulus or a sound file to a WAV or FLAC file.",
        discussion: """
            Sources (each generator's flags; --seed chooses every random choice):
            \(Generator.kinds.map { "  " + $0.help }.joined(separator: "\n"))
            A sound file (music) plays as it is, at its own rate unless --rate is given.
            Modifiers: --notch (and --notch-width, --edge-boost), --am (amplitude modulation), --pulse/--ramp \
            (pulsed tones), --fade, --swell (a slow random-like swell), --audiogram. \
            --level is the RMS in dBFS of the sustained sound (with --am after modulation, before pulses and \
            fades). A generator's sounding channels each have exactly that RMS; a mix, a sound per ear or a \
            sound file keeps the balance of its channels, and the mean power of its sounding channels is the \
            level (the summary line then prints each channel's RMS too). A file that would clip is not \
            written; the error names the highest level that fits.

            Examples:
              shades render pink --duration 10m --level -20 --seed 7 -o pink.wav
              shades render white --duration 90s -o white.flac
              shades render brown --duration 1h --loop -o brown.wav
              shades render noise --beta 0.5 --duration 30s -o tilt.wav
              shades render tone --frequency 6kHz --duration 2m --channels left -o t.wav
              shades render pink --am 10 --am-depth 1 --duration 3m -o am-pink.wav
              shades render tone --frequency 6kHz --am 40 --duration 3m -o am-tone.wav
              shades render tone --frequency 1kHz --pulse 200ms/200ms --duration 10s \\
                -o p.wav
              shades render pink --notch 6kHz --duration 10m --loop -o notched-pink.wav
            \(Generator.kinds.compactMap { $0.example.map(helpExample) }.joined(separator: "\n"))
              shades render --sound rain.json --duration 60s --loop -o rain.wav
              shades render song.mp3 --notch 6kHz --format s24 -o song-notched.wav
            """)

    @Argument(help: ArgumentHelp("\(Generator.sourceNames.joined(separator: ", ")), or a sound file (music)."))
    var source: String?

    @OptionGroup var length: DurationOption<SoundHelp.Duration>

    @OptionGroup var sampleFormat: SampleFormatOption<SoundHelp.Format>

    @OptionGroup var sound: SoundOptions

    @Option(name: .shortAndLong, parsing: .unconditional, help: "Output file (.wav or .flac), or - for a WAV stream on standard output.")
    var output: String

    func run() throws {
        if output == "-" { return try stream() }
        let request = try makeRequest()
        try CommandPaths.checkOutput(output, inputs: sound.inputs(of: request))
        let format = sampleFormat.format ?? (request.sound.hasNotch ? .s24 : .s16)
        let report = try Renderer.renderFile(request, to: output, sampleFormat: format)
        for note in report.notes { print(note) }
        let seconds = (Double(report.frames) / request.sampleRate * 1000).rounded() / 1000
        // The file's own level, quantisation included (what a meter reading it shows), measured as it was written.
        let written = (rms: report.written.rmsDBFS, peak: report.written.samplePeakDBFS)
        // The channels' balance where an RMS level was asked (under a ceiling the file keeps its own).
        let balance = report.rmsDBFS == nil ? "" : Self.channelBalance(report.written.channelRMSDBFS)
        var level = "RMS \(written.rms.map { String(format: $0) } ?? "-inf") dBFS\(balance), peak \(written.peak.map { String(format: $0) } ?? "-inf") dBFS"
        if let sustained = report.rmsDBFS, request.pulses != nil || request.fades != nil {
            level = "file " + level + " (sustained sound \(String(format: sustained)) dBFS)"
        } else if report.rmsDBFS == nil {
            level += ", gain \(String(format: Decibels.fromAmplitude(Double(report.gains.first ?? 1)))) dB, true peak \(String(format: report.truePeakDBTP ?? -300)) dBTP"
        }
        print("wrote \(output): \(seconds) s, \(Int(request.sampleRate)) Hz, \(request.resolvedLayout.rawValue), \(format.rawValue), \(level)")
    }

    /// " (mean power of left -22.96, right -28.96)" when the sounding channels' RMS levels (dBFS) differ
    /// by more than their quantisation (0.02 dB); empty when they agree, as a generator's do.
    static func channelBalance(_ channels: [Double?]) -> String {
        let sounding = channels.compactMap { $0 }
        guard let low = sounding.min(), let high = sounding.max(), high - low > 0.02 else { return "" }
        let names = channels.count == 2 ? ["left", "right"] : channels.indices.map { "channel \($0 + 1)" }
        let parts = zip(names, channels).map { name, rms in "\(name) \(rms.map { String(format: $0) } ?? "-inf")" }
        return " (mean power of \(parts.joined(separator: ", ")))"
    }

    func makeRequest() throws -> RenderRequest {
        try sound.makeRequest(source: source, duration: length.duration)
    }

    /// `-o -`: a WAV stream on standard output at the sound's expected level (``SoundGraph/makeSource(gains:)``;
    /// no measuring pass, so it starts at once), endless without `--duration`; ends with exit 0 when the
    /// reader goes away.
    func stream() throws {
        let format = sampleFormat.format ?? .s16
        guard format != .s24 else {
            throw ShadesError(parameter: .sampleFormat, value: "s24", allowed: "s16 or f32 for a stream on standard output (-o -)")
        }
        if isatty(1) != 0 { throw ShadesError.usage("-o - writes a WAV stream: pipe it into a player or file (e.g. | aplay)") }
        let request = try sound.makeRequest(source: source, duration: length.duration, defaultSeconds: 3_600)
        let graph = try SoundGraph(request)
        let source = graph.makeSource()
        signal(SIGPIPE, SIG_IGN)
        _ = try WAVStream.write(source, frames: length.duration == nil && !sound.countsPulses ? nil : request.frameCount,
                                gains: Array(repeating: 1, count: source.channelCount),
                                ditherKeys: (0..<source.channelCount).map { SeedStream.dither.key(seed: request.resolvedSeed, channel: $0) },
                                sampleFormat: format, to: 1)
    }
}

extension String {
    init(format value: Double) {
        let scaled = (value * 100).rounded() / 100
        self = String(scaled)
    }
}

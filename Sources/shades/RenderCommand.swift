import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

extension ChannelLayout: ExpressibleByArgument {}
extension SampleFormat: ExpressibleByArgument {}
extension WhiteDistribution: ExpressibleByArgument {}
extension AmplitudeModulationLevel: ExpressibleByArgument {}
extension CoordinatedResetPattern.ToneSet: ExpressibleByArgument {}
extension SpectralRipple.Condition: ExpressibleByArgument {}

/// `shades render SOURCE …`: one sound to one file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a noise colour, a tone, narrow-band noise or a therapy stimulus to a WAV or FLAC file.",
        discussion: """
            Sources: white, pink, brown, blue, violet (PSD ∝ f^-β with β 0, 1, 2, -1, -2), noise (any --beta \
            in [-2, 2]), tone (--frequency) and nbn (narrow-band noise: --frequency, --width in octaves). \
            Therapy stimuli around a tinnitus frequency (--frequency): cr (acoustic coordinated reset, Tass \
            et al. 2012, timing after Adamchic et al. 2017: --tones, --tone-length, --tone-ramp, --cycle-rate, \
            --on-cycles, --off-cycles, --tone-gains) and ripple (spectral-ripple modulation, Yukhnovich et al. \
            2025: --condition amplitude|phase|noise, --sham, --band-gains); --seed chooses their orders and \
            segments. Both are one signal (the same in both ears for stereo).
            Generative sounds: velvet (velvet noise: --density impulses/s), binaural (binaural beats: \
            --carrier in the left ear, carrier + --beat in the right; stereo only), isochronic (a tone, \
            --frequency, switched on and off --beat times a second: --duty, --ramp) and fractal (fractal \
            tones: a 1/f melody, --scale, --low, --high, --tempo, --seed).
            Modifiers: --am (amplitude modulation), --pulse/--ramp (pulsed tones), --fade. \
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
              shades render nbn --frequency 4kHz --width 0.5 --duration 1m -o nbn.wav
              shades render tone --frequency 1kHz --pulse 200ms/200ms --duration 10s -o p.wav
              shades render pink --notch 6kHz --duration 10m --loop -o notched-pink.wav
              shades render cr --frequency 4kHz --duration 60s --seed 3 -o cr.wav
              shades render ripple --frequency 4kHz --duration 60s -o ripple.wav
              shades render binaural --carrier 200Hz --beat 10Hz --duration 10m -o binaural.wav
              shades render isochronic --frequency 200Hz --beat 10Hz --duty 0.5 --ramp 5ms --duration 10m -o iso.wav
              shades render velvet --density 2000 --duration 60s -o velvet.wav
              shades render fractal --scale pentatonic --low 523.25Hz --high 2093Hz --tempo 80 --seed 4 --duration 10m -o zen.wav
              shades render --sound rain.json --duration 60s --loop -o rain.wav
              shades render song.mp3 --notch 6kHz --format s24 -o song-notched.wav
            """)

    @Argument(help: "white, pink, brown, blue, violet, grey, noise, velvet, tone, nbn, binaural, isochronic, fractal, cr, ripple, or a sound file (music).")
    var source: String?

    @OptionGroup var length: DurationOption

    @OptionGroup var sampleFormat: SampleFormatOption

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
            throw ShadesError(parameter: "format", value: "s24", allowed: "s16 or f32 for a stream on standard output (-o -)")
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

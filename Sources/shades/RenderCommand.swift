import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender

extension ChannelLayout: ExpressibleByArgument {}
extension SampleFormat: ExpressibleByArgument {}
extension WhiteDistribution: ExpressibleByArgument {}

/// `shades render SOURCE …`: one sound to one file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a noise colour or a tone to a WAV or FLAC file.",
        discussion: """
            Sources: white, pink, brown, blue, violet (PSD ∝ f^-β with β 0, 1, 2, -1, -2), noise (any --beta
            in [-2, 2]) and tone (--frequency). Levels are RMS in dBFS; each sounding channel of the file has
            exactly that RMS. A file that would clip is not written; the error names the highest level that fits.

            Examples:
              shades render pink  --duration 10m --rate 48000 --channels stereo --level -20 --seed 7 --format s16 -o pink.wav
              shades render white --duration 90s -o white.flac
              shades render brown --duration 1h --loop -o brown.wav
              shades render noise --beta 0.5 --duration 30s -o tilt.wav
              shades render tone  --frequency 6kHz --duration 2m --channels left -o tone.wav
            """)

    @Argument(help: "white, pink, brown, blue, violet, noise or tone.")
    var source: String

    @Option(help: "Length: 90s, 10m, 1h, 1.5s, 50ms or plain seconds.")
    var duration: String

    @Option(help: "Sample rate in Hz, 8000 … 192000 (48000, 44.1kHz …).")
    var rate: String = "48000"

    @Option(help: "mono, stereo (independent noise per ear), diotic (same in both ears), left or right.")
    var channels: ChannelLayout = .stereo

    @Option(parsing: .unconditional, help: "RMS level in dBFS (-20, -20dBFS).")
    var level: String = "-20"

    @Option(help: "Random seed; the same seed and parameters give a byte-identical file.")
    var seed: UInt64 = 1

    @Option(help: "Sample format: s16 (TPDF-dithered), s24 or f32 (WAV only).")
    var format: SampleFormat = .s16

    @Flag(help: "Make a seamless loop: noise shaped over the whole length, a tone adjusted to whole cycles.")
    var loop = false

    @Option(parsing: .unconditional, help: "Spectral exponent β in [-2, 2] for 'noise' (PSD ∝ f^-β).")
    var beta: Double?

    @Option(help: "Tone frequency: 6000, 6kHz, 440Hz.")
    var frequency: String?

    @Option(help: "White-noise sample distribution: gaussian or uniform.")
    var distribution: WhiteDistribution = .gaussian

    @Option(name: .shortAndLong, help: "Output file (.wav or .flac).")
    var output: String

    func run() throws {
        let request = try makeRequest()
        do {
            try AtomicFile.checkWritable(output)
        } catch { throw CommandFailure.runtime(error.description) }
        let report: FileRenderReport
        do {
            report = try Renderer.renderFile(request, to: output, sampleFormat: format)
        } catch let error {
            switch error {
            case .usage(let m): throw CommandFailure.usage(m)
            case .runtime(let m): throw CommandFailure.runtime(m)
            }
        }
        for note in report.notes { print(note) }
        let seconds = Double(request.frameCount) / request.sampleRate
        print("wrote \(output): \(seconds) s, \(Int(request.sampleRate)) Hz, \(request.layout.rawValue), \(format.rawValue), RMS \(request.levelDBFS) dBFS, peak \(String(format: report.peakDBFS)) dBFS")
    }

    func makeRequest() throws -> RenderRequest {
        do {
            let sound: SoundDescription
            switch source.lowercased() {
            case "tone":
                guard let frequency else { throw CommandFailure.usage("tone needs --frequency (above 0 and below Nyquist)") }
                sound = .tone(frequencyHz: try ValueParsing.hertz(frequency))
            case "noise":
                guard let beta else { throw CommandFailure.usage("noise needs --beta (allowed: -2 … 2)") }
                sound = .noise(colour: try NoiseColour(beta: beta), distribution: distribution)
            default:
                guard let colour = NoiseColour.named.first(where: { $0.name == source.lowercased() })?.colour else {
                    throw CommandFailure.usage("source '\(source)' is unknown (allowed: white, pink, brown, blue, violet, noise, tone)")
                }
                if beta != nil { throw CommandFailure.usage("--beta applies to 'noise' only (\(source) has beta \(colour.beta))") }
                sound = .noise(colour: colour, distribution: distribution)
            }
            if frequency != nil, case .noise = sound { throw CommandFailure.usage("--frequency applies to 'tone' only") }
            let request = RenderRequest(
                sound: sound, durationSeconds: try ValueParsing.seconds(duration),
                sampleRate: try ValueParsing.hertz(rate, parameter: "rate"), layout: channels,
                levelDBFS: try ValueParsing.decibels(level), seed: seed, loop: loop)
            try request.validate()
            return request
        } catch let error as ParameterError {
            throw CommandFailure.usage(error.description)
        }
    }
}

extension String {
    init(format value: Double) {
        let scaled = (value * 100).rounded() / 100
        self = String(scaled)
    }
}

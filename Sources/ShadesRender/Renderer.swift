import Dispatch
import ShadesDSP
import ShadesIO

/// A rendered sound in memory, with the gains that bring each channel exactly to the asked level.
public struct RenderedSound: @unchecked Sendable {
    public let request: RenderRequest
    /// Samples before the normalising gain.
    public let buffer: AudioBuffer
    /// Linear gain per channel: measured RMS × gain = asked level (1 for silent channels).
    public let gains: [Float]
    /// Largest |sample| after the gain, over all channels (linear, full scale 1.0).
    public let peak: Double
    /// The tone frequency actually rendered (a loop adjusts it to whole cycles), in Hz.
    public let renderedFrequencyHz: Double?
    /// Things the user should know, e.g. a loop's frequency adjustment.
    public let notes: [String]

    /// Peak after the gain, in dBFS.
    public var peakDBFS: Double { Decibels.fromAmplitude(peak) }
}

/// Renders ``RenderRequest``s to memory and files.
public enum Renderer {
    /// Renders `request`: each independent signal on its own thread, then measures each channel so the
    /// written file has exactly the asked RMS level.
    public static func render(_ request: RenderRequest) throws(ParameterError) -> RenderedSound {
        try request.validate()
        let frames = request.frameCount
        // A tone is one signal: in stereo both ears carry it.
        let layout: ChannelLayout
        if case .tone = request.sound, request.layout == .stereo { layout = .diotic } else { layout = request.layout }
        let output = AudioBuffer(channelCount: layout.outputChannelCount, frameCapacity: frames,
                                 zeroed: layout.signalCount == layout.outputChannelCount)
        var notes: [String] = []
        var renderedFrequency: Double?

        // Output channel carrying each independent signal first; later channels copy it.
        let firstChannel: [Int] = (0..<layout.signalCount).map { s in
            (0..<layout.outputChannelCount).first { layout.signal(forOutputChannel: $0) == s }!
        }
        switch request.sound {
        case .noise(let colour, let distribution):
            let shapedLoop = request.loop && colour.beta != 0
            DispatchQueue.concurrentPerform(iterations: layout.signalCount) { s in
                output.withChannel(firstChannel[s]) { channel in
                    if shapedLoop {
                        LoopNoise.render(colour: colour, sampleRate: request.sampleRate,
                                         key: SeedStream.noise.key(seed: request.seed, channel: s), into: channel)
                    } else {
                        // Parameters were validated above, so this cannot throw.
                        let source = try! NoiseSource(colour: colour, sampleRate: request.sampleRate, layout: .mono,
                                                      levelDBFS: request.levelDBFS, seed: request.seed,
                                                      distribution: distribution, firstSignal: s)
                        renderMono(source, into: channel)
                    }
                }
            }
        case .tone(let frequencyHz):
            var frequency = frequencyHz
            if request.loop {
                frequency = ToneSource.loopFrequency(near: frequencyHz, frameCount: frames, sampleRate: request.sampleRate)
                if frequency != frequencyHz {
                    notes.append("loop: tone frequency adjusted from \(formatNumber(frequencyHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - frequencyHz)) Hz) for a whole number of cycles")
                }
            }
            guard frequency < request.sampleRate / 2 else {
                throw ParameterError(parameter: "frequency", value: "\(frequencyHz) Hz",
                                     allowed: "below Nyquist (\(request.sampleRate / 2) Hz) after whole-cycle loop adjustment")
            }
            renderedFrequency = frequency
            let source = try ToneSource(frequencyHz: frequency, sampleRate: request.sampleRate, layout: .mono,
                                        levelDBFS: -3.0103)
            output.withChannel(firstChannel[0]) { renderMono(source, into: $0) }
        }

        // Copy signals into the other channels that carry them (diotic), silence the silent ones.
        for c in 0..<layout.outputChannelCount {
            guard let s = layout.signal(forOutputChannel: c) else { continue }
            if c != firstChannel[s] {
                output.withChannel(firstChannel[s]) { source in
                    output.withChannel(c) { $0.baseAddress!.update(from: source.baseAddress!, count: frames) }
                }
            }
        }

        // Measure and normalise each sounding channel to the asked RMS (channels in parallel).
        let target = Decibels.amplitude(request.levelDBFS)
        nonisolated(unsafe) let measured = UnsafeMutableBufferPointer<(sumOfSquares: Double, peak: Float)>
            .allocate(capacity: layout.outputChannelCount)
        defer { measured.deallocate() }
        DispatchQueue.concurrentPerform(iterations: layout.outputChannelCount) { c in
            measured[c] = output.withChannel(c) { SignalLevel.measure(UnsafeBufferPointer($0)) }
        }
        var gains = [Float](repeating: 1, count: layout.outputChannelCount)
        var peak = 0.0
        for c in 0..<layout.outputChannelCount where layout.signal(forOutputChannel: c) != nil {
            let rms = (measured[c].sumOfSquares / Double(frames)).squareRoot()
            gains[c] = rms > 0 ? Float(target / rms) : 1
            peak = max(peak, Double(measured[c].peak) * Double(gains[c]))
        }
        return RenderedSound(request: request, buffer: output, gains: gains, peak: peak,
                             renderedFrequencyHz: renderedFrequency, notes: notes)
    }

    /// Writes `sound` to `path` (WAV or FLAC by extension) in `sampleFormat`, atomically, with its
    /// parameters in the comment tag. Refuses to write a file that would clip.
    public static func write(_ sound: RenderedSound, to path: String, sampleFormat: SampleFormat) throws(RenderError) {
        let format: AudioFileFormat
        do throws(AudioFileError) {
            format = try AudioFileFormat(container: try Container(path: path), sampleFormat: sampleFormat)
        } catch { throw RenderError(error) }
        let limit = sampleFormat.clipLimit
        if sound.peak > limit {
            let highest = sound.request.levelDBFS - Decibels.fromAmplitude(sound.peak / limit)
            throw .runtime("level \(formatNumber(sound.request.levelDBFS)) dBFS would clip (peak \(formatSigned(sound.peakDBFS, digits: 2)) dBFS in \(sampleFormat.rawValue)); the highest level that fits is \(formatFloor(highest)) dBFS")
        }
        do throws(AudioFileError) {
            try AudioFileWriter.write(sound.buffer, sampleRate: Int(sound.request.sampleRate), gains: sound.gains,
                                      to: path, format: format,
                                      ditherKey: SeedStream.dither.key(seed: sound.request.seed, channel: 0),
                                      comment: comment(for: sound, format: sampleFormat))
        } catch { throw RenderError(error) }
    }

    /// The comment tag: every parameter needed to render the file again.
    public static func comment(for sound: RenderedSound, format: SampleFormat) -> String {
        let r = sound.request
        var text = "\(AudioFileWriter.software) render \(r.sound.summary)"
        if let f = sound.renderedFrequencyHz, case .tone(let asked) = r.sound, f != asked { text += " rendered_frequency=\(f)Hz" }
        text += " duration=\(formatNumber(r.durationSeconds))s rate=\(formatNumber(r.sampleRate)) channels=\(r.layout.rawValue)"
        text += " level=\(formatNumber(r.levelDBFS))dBFS seed=\(r.seed) loop=\(r.loop) format=\(format.rawValue)"
        return text
    }

    private static func renderMono(_ source: some AudioSource, into channel: UnsafeMutableBufferPointer<Float>) {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: 1) { pointers in
            pointers[0] = channel.baseAddress!
            source.render(into: AudioBlock(channels: UnsafeBufferPointer(pointers), frameCount: channel.count))
        }
    }
}

/// A render failure: `usage` for the caller's input (exit code 2), `runtime` for everything else (1).
public enum RenderError: Error, Sendable, CustomStringConvertible {
    case usage(String)
    case runtime(String)

    init(_ error: AudioFileError) {
        switch error {
        case .usage(let m): self = .usage(m)
        case .runtime(let m): self = .runtime(m)
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .runtime(let m): return m
        }
    }
}

func formatSigned(_ value: Double, digits: Int = 4) -> String {
    let text = String(format: value, digits: digits)
    return value >= 0 ? "+" + text : text
}

/// The value rounded down to 0.1 (a level that surely fits).
func formatFloor(_ value: Double) -> String { String(format: (value * 10).rounded(.down) / 10, digits: 1) }

extension String {
    /// `value` with `digits` decimals.
    init(format value: Double, digits: Int) {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (abs(value) * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
            if digits == 0 { text = String(text[..<dot]) }
        }
        self = (value < 0 && rounded != 0 ? "-" : "") + text
    }
}

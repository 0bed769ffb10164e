import Dispatch
import ShadesDSP
import ShadesIO

/// A rendered sound in memory, with the gains that bring each channel exactly to the asked level.
public struct RenderedSound: @unchecked Sendable {
    package let request: RenderRequest
    /// Samples before the normalising gain.
    public let buffer: AudioBuffer
    /// Linear gain per channel: measured RMS × gain = asked level (1 for silent channels).
    package let gains: [Float]
    /// Largest |sample| after the gain, over all channels (linear, full scale 1.0).
    package let peak: Double
    /// The tone frequency actually rendered (a loop adjusts it to whole cycles), in Hz.
    package let renderedFrequencyHz: Double?
    /// Things the user should know, e.g. a loop's frequency adjustment.
    public let notes: [String]

    /// Peak after the gain, in dBFS.
    public var peakDBFS: Double { Decibels.fromAmplitude(peak) }
}

/// Renders ``RenderRequest``s to memory and to files, each at the gain its ``LevelPolicy`` chooses.
public enum Renderer {
    /// Frames per chunk when streaming to a file or measuring: ``FileSink/defaultChunkFrames``.
    package static let chunkFrames = FileSink.defaultChunkFrames

    /// Renders `request` into memory (each independent signal on its own thread) and measures each
    /// channel. For analysis, tests and the catalogue's short sounds; files are written by
    /// ``renderFile(_:to:sampleFormat:)``, which streams and never holds the audio.
    public static func render(_ request: RenderRequest) throws(ShadesError) -> RenderedSound {
        let graph = try SoundGraph(request)
        guard let layout = graph.layout else { return try renderComposite(request, graph: graph) }
        let output = AudioBuffer(channelCount: layout.outputChannelCount, frameCapacity: graph.frames)
        // Each signal rendered on its own thread into the first channel that carries it; then the layout's
        // fan-out copies it to the others (the signals are already in place: nothing more to render).
        let first = graph.firstChannel
        DispatchQueue.concurrentPerform(iterations: graph.signalCount) { s in
            output.withChannel(first[s]) { renderMono(graph.makeSignal(s), into: $0) }
        }
        output.withBlock { layout.fill($0) { _, _ in } }
        // Without pulses or fades the rendered signals are the sustained sound: measure them where they are
        // (same chunks and sums as a measuring pass) instead of rendering everything a second time.
        let sustainedIsRendered = request.pulses == nil && request.fades == nil
        let measurements = graph.knownMeasurements ?? (sustainedIsRendered
            ? (0..<graph.signalCount).map { s in output.withChannel(first[s]) { measureChunked(UnsafeBufferPointer($0)) } }
            : graph.measureSustainedSignals().meters)
        let (signalGains, peak) = graph.gainsAndPeak(for: measurements)
        return RenderedSound(request: request, buffer: output, gains: graph.channelGains(signalGains), peak: peak,
                             renderedFrequencyHz: graph.renderedFrequencyHz, notes: graph.notes)
    }

    /// A mix, a swelled sound or a file in memory, rendered once (a file to its decoded end), then measured;
    /// one gain for every channel.
    private static func renderComposite(_ request: RenderRequest, graph: SoundGraph) throws(ShadesError) -> RenderedSound {
        let output: AudioBuffer
        if graph.playsFileToEnd {
            output = try renderToEnd(graph)
        } else {
            output = AudioBuffer(channelCount: graph.outputChannelCount, frameCapacity: graph.frames)
            output.withBlock(frames: 0..<graph.frames) { graph.makeGroup(0).render(into: $0) }
        }
        let frames = output.frameCapacity
        if let failure = graph.failures.error { throw failure }
        let sustainedIsRendered = request.pulses == nil && request.fades == nil
        let measurements = sustainedIsRendered
            ? (0..<graph.signalCount).map { s in output.withChannel(s) { measureChunked(UnsafeBufferPointer($0)) } }
            : graph.measureSustainedSignals().meters
        if let failure = graph.failures.error { throw failure }
        let (signalGains, peak) = graph.gainsAndPeak(for: measurements, frames: frames)
        return RenderedSound(request: request, buffer: output, gains: graph.channelGains(signalGains), peak: peak,
                             renderedFrequencyHz: graph.renderedFrequencyHz, notes: graph.notes)
    }

    /// A file sound rendered to its decoded end in one pass (the file is decoded, resampled and notched
    /// once): blocks until the file's reader has met its end, then joined. A file not read whole (a cut
    /// MP3: ``AudioFileSource/lengthWarning``) is refused: a sound in memory is all of its file.
    private static func renderToEnd(_ graph: SoundGraph) throws(ShadesError) -> AudioBuffer {
        let (source, opened) = graph.makeChain(0, false)
        guard let file = opened else { throw graph.failures.error ?? .input("the sound file could not be opened again") }
        let block = FileChain.blockFrames, channels = graph.outputChannelCount
        var pieces: [(buffer: AudioBuffer, frames: Int)] = []
        var done = 0
        // The notch renders the file ahead of its output: the file's end is known before it is reached.
        while file.frameCount.map({ done < $0 }) ?? true {
            let piece = AudioBuffer(channelCount: channels, frameCapacity: block, zeroed: false)
            piece.withBlock { source.render(into: $0) }
            let valid = max(0, min(block, (file.frameCount ?? Int.max) - done))
            pieces.append((piece, valid))
            done += valid
        }
        if let failure = file.failure { throw failure }
        if let warning = file.lengthWarning { throw .input(warning) }
        let output = AudioBuffer(channelCount: channels, frameCapacity: done, zeroed: false)
        var start = 0
        for (piece, frames) in pieces where frames > 0 {
            for c in 0..<channels {
                piece.withChannel(c) { from in
                    output.withChannel(c) { to in (to.baseAddress! + start).update(from: from.baseAddress!, count: frames) }
                }
            }
            start += frames
        }
        return output
    }

    /// Σx² and peak over samples in memory, in the chunks of a measuring pass (same order, same sums).
    static func measureChunked(_ samples: UnsafeBufferPointer<Float>) -> SignalMeasurement {
        var total = SignalMeasurement(sumOfSquares: 0, peak: 0)
        for start in stride(from: 0, to: samples.count, by: chunkFrames) {
            total.add(UnsafeBufferPointer(rebasing: samples[start..<min(samples.count, start + chunkFrames)]))
        }
        return total
    }

    /// The comment tag: every parameter needed to render the file again. A generator's in the words of the
    /// command line; a mix or a file as its JSON sound.
    package static func comment(for r: RenderRequest, renderedFrequencyHz: Double?, renderedModulationHz: Double? = nil,
                               format: SampleFormat) -> String {
        guard let generator = r.sound.generator, r.sound.swell == nil else {
            var text = "\(AudioFileWriter.software) render sound=\(r.sound.compactJSON)"
            if r.durationSeconds.isFinite { text += " duration=\(formatNumber(r.durationSeconds))s" }
            text += " rate=\(formatNumber(r.sampleRate)) channels=\(r.resolvedLayout.rawValue) level=\(r.level.summary)"
            text += " seed=\(r.resolvedSeed) loop=\(r.loop) format=\(format.rawValue)"
            return text
        }
        var text = "\(AudioFileWriter.software) render \(generator.summary)"
        if let f = renderedFrequencyHz, let asked = generator.as(Tone.self)?.frequencyHz, f != asked { text += " rendered_frequency=\(f)Hz" }
        if let fm = r.sound.frequencyModulation { text += " " + fm.summary }
        if let m = r.modulation {
            text += " " + m.summary
            if let applied = renderedModulationHz, applied != m.rateHz { text += " rendered_am=\(applied)Hz" }
        }
        if let random = r.sound.randomModulation { text += " " + random.summary }
        if let surf = r.sound.surf { text += " " + surf.summary }
        for n in r.notches ?? [] {
            text += " notch=\(formatNumber(n.centreHz))Hz notch_width=\(formatNumber(n.widthOctaves))oct"
            if n.edgeBoostDB > 0 { text += " edge_boost=\(formatNumber(n.edgeBoostDB))dB edge_width=\(formatNumber(n.edgeWidthOctaves))oct" }
            if n.ears != .both { text += " notch_ears=\(n.ears.rawValue)" }
        }
        if let p = r.pulses { text += " pulse=" + p.summary }
        if let f = r.fades { text += " fade_in/out=" + f.summary }
        text += " duration=\(formatNumber(r.durationSeconds))s rate=\(formatNumber(r.sampleRate)) channels=\(r.resolvedLayout.rawValue)"
        text += " level=\(formatNumber(r.levelDBFS))dBFS seed=\(r.resolvedSeed) loop=\(r.loop)"
        if r.streamsPeriodicLoop { text += " loop_method=periodic" }
        text += " format=\(format.rawValue)"
        return text
    }

    static func renderMono(_ source: some AudioSource, into channel: UnsafeMutableBufferPointer<Float>) {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: 1) { pointers in
            pointers[0] = channel.baseAddress!
            source.render(into: AudioBlock(channels: UnsafeBufferPointer(pointers), frameCount: channel.count))
        }
    }
}


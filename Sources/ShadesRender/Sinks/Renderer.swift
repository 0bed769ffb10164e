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

/// What a file render did.
public struct FileRenderReport: Sendable {
    /// Linear gain applied to each signal so its RMS is the asked level.
    package let gains: [Float]
    /// RMS of each sounding channel's sustained sound, dBFS: the asked level, lowered by a modulation that
    /// keeps the peak instead of the RMS (nil under a true-peak ceiling).
    public let rmsDBFS: Double?
    /// Largest |sample| after the gain (linear, full scale 1.0); under a ceiling, the true peak.
    package let peak: Double
    /// True peak after the gain, dBTP, when the policy measured it (a ceiling).
    public let truePeakDBTP: Double?
    /// Frames written.
    public let frames: Int
    /// The level of the samples in the file (quantisation included), measured as they were written.
    package let written: WrittenLevel
    package let renderedFrequencyHz: Double?
    public let notes: [String]
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

    /// Largest difference, in dB, between a one-pass file's level and the asked level that is kept (half
    /// the 0.01 dB the level promises); a file further off is written again at the measured gain.
    package static let onePassLevelToleranceDB = 0.005

    /// Renders `request` to `path` (WAV or FLAC by extension) in `sampleFormat` through a ``FileSink``,
    /// streaming in bounded memory, so that the file's RMS is the asked level (within
    /// ``onePassLevelToleranceDB``; Float before quantisation). Nothing clips: a render that would is
    /// refused, naming the highest level that fits. The file appears only when complete, with the
    /// parameters in its comment tag.
    ///
    /// - Streams at the asked level in expectation (noise, narrow-band noise, modulated or not) whose
    ///   predicted level scatter is within a third of the tolerance (white noise from 5 minutes at 48 kHz:
    ///   0.0011 dB at 10 minutes) are written in one pass at that level and measured while written; the
    ///   rare render further off than the tolerance is written again at the measured gain.
    /// - Everything else takes two passes: measure, then write at the exact gain (tones and loops are
    ///   measured without rendering). Pink noise scatters by 0.007 dB over 10 minutes, brown by 0.03 dB.
    @discardableResult
    public static func renderFile(_ request: RenderRequest, to path: String,
                                  sampleFormat: SampleFormat) throws(ShadesError) -> FileRenderReport {
        let sink: FileSink
        _ = try AudioFileFormat(container: try Container(path: path), sampleFormat: sampleFormat)
        let graph = try SoundGraph(request)
        sink = try FileSink(path: path, sampleFormat: sampleFormat, sampleRate: Int(request.sampleRate),
                            channelMap: graph.channelMap,
                            ditherKeys: (0..<graph.signalCount).map { SeedStream.dither.key(seed: request.resolvedSeed, channel: $0) },
                            comment: Self.comment(for: request, renderedFrequencyHz: graph.renderedFrequencyHz,
                                                  renderedModulationHz: graph.renderedModulationHz, format: sampleFormat),
                            chunkFrames: graph.layout == nil ? FileChain.blockFrames : FileSink.defaultChunkFrames)
        let signals = SourceGroups(channelCounts: graph.groupChannelCounts, make: graph.makeGroup)

        switch request.level {
        case .loudness:
            throw .usage("a loudness target is the catalogue's (it measures the rendered sound with libebur128); render takes an RMS level or a true-peak ceiling")
        case .truePeakCeiling(let ceiling):
            // Pass 1: the written sound's true peak and length; pass 2: the same at the gain that keeps it under the ceiling.
            let (peaks, frames) = graph.measure(meters: Array(repeating: TruePeakMeter(sampleRate: request.sampleRate), count: graph.signalCount))
            if let failure = graph.failures.error { throw failure }
            let peak = peaks.map(\.peak).max() ?? 0
            let gain = LevelPolicy.ceilingGain(forPeak: peak, ceilingDBTP: ceiling, format: sampleFormat)
            let level = try sink.write(signals, frames: frames, gains: Array(repeating: gain, count: graph.signalCount))
            if let failure = graph.failures.error { throw failure }
            return FileRenderReport(gains: Array(repeating: gain, count: graph.signalCount), rmsDBFS: nil, peak: peak * Double(gain),
                                    truePeakDBTP: Decibels.fromAmplitude(peak * Double(gain)), frames: frames, written: level,
                                    renderedFrequencyHz: graph.renderedFrequencyHz, notes: graph.notes)
        case .rms(let level):
            try LevelPolicy.refuseBelowFloor(levelDBFS: level, format: sampleFormat)
        }
        // One pass when it will almost surely land within the tolerance (3 standard deviations).
        let onePass = graph.knownMeasurements == nil && (graph.levelScatterDB.map { 3 * $0 <= onePassLevelToleranceDB } ?? false)

        var written: (gains: [Float], peak: Double) = ([], 0)
        var level: WrittenLevel
        var frames = graph.frames
        if !onePass {
            let measured = graph.knownMeasurements.map { ($0, graph.frames) } ?? graph.measureSustainedSignals()
            if let failure = graph.failures.error { throw failure }
            frames = measured.1
            written = graph.gainsAndPeak(for: measured.0, frames: frames)
            try LevelPolicy.refuseClipping(peak: written.peak, levelDBFS: request.levelDBFS, format: sampleFormat)
            level = try sink.write(signals, frames: frames, gains: written.gains)
            if let failure = graph.failures.error { throw failure }
        } else {
            level = try sink.create { (writer: FileSink.Writer) throws(ShadesError) -> WrittenLevel in
                // The expected gain: the stream's level is the asked one, times the modulation's ratio.
                let expected = [Float](repeating: Float(graph.levelRatio), count: graph.signalCount)
                let first = try writer.write(signals, frames: graph.frames, gains: expected,
                                             meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: graph.signalCount))
                let measured = first.meters!
                let exact = graph.gainsAndPeak(for: measured)
                try LevelPolicy.refuseClipping(peak: exact.peak, levelDBFS: request.levelDBFS, format: sampleFormat)
                let peakAsWritten = zip(measured, expected).map { Double($0.peak) * Double($1) }.max() ?? 0
                let offDB = zip(expected, exact.gains).map { abs(Decibels.fromAmplitude(Double($0) / Double($1))) }.max() ?? 0
                if offDB <= onePassLevelToleranceDB && peakAsWritten <= sampleFormat.clipLimit {
                    written = (expected, peakAsWritten)
                    return first.written
                }
                written = exact
                return try writer.write(signals, frames: graph.frames, gains: exact.gains, meters: [SignalMeasurement]?.none).written
            }
        }
        return FileRenderReport(gains: written.gains, rmsDBFS: request.levelDBFS + Decibels.fromAmplitude(graph.levelRatio),
                                peak: written.peak, truePeakDBTP: nil, frames: frames, written: level,
                                renderedFrequencyHz: graph.renderedFrequencyHz, notes: graph.notes)
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
        if let m = r.modulation {
            text += " " + m.summary
            if let applied = renderedModulationHz, applied != m.rateHz { text += " rendered_am=\(applied)Hz" }
        }
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


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

/// What a file render did.
public struct FileRenderReport: Sendable {
    /// Linear gain applied to each signal so its RMS is the asked level.
    public let gains: [Float]
    /// RMS of each sounding channel's sustained sound, dBFS: the asked level, lowered by a modulation that
    /// keeps the peak instead of the RMS.
    public let rmsDBFS: Double
    /// Largest |sample| after the gain (linear, full scale 1.0).
    public let peak: Double
    public let renderedFrequencyHz: Double?
    public let notes: [String]
    public var peakDBFS: Double { Decibels.fromAmplitude(peak) }
}

/// Renders ``RenderRequest``s to memory and to files.
public enum Renderer {
    /// Frames per chunk when streaming to a file or measuring (5.5 s at 48 kHz: 1 MB of Float per signal).
    /// Measured on 10-minute stereo white noise, 2 cores: 16,384 → 102 ms, 65,536 → 81 ms, 262,144 → 69 ms,
    /// 1,048,576 → 97 ms (fewer hand-offs between the threads, still in the 2 MB cache).
    static let chunkFrames = 262_144

    /// Renders `request` into memory (each independent signal on its own thread) and measures each
    /// channel. For analysis and tests; files are written by ``renderFile(_:to:sampleFormat:)``,
    /// which streams and never holds the audio.
    public static func render(_ request: RenderRequest) throws(ShadesError) -> RenderedSound {
        let plan = try SignalPlan(request: request)
        let layout = plan.layout
        let output = AudioBuffer(channelCount: layout.outputChannelCount, frameCapacity: plan.frames)
        let first = plan.firstChannel
        DispatchQueue.concurrentPerform(iterations: plan.signalCount) { s in
            output.withChannel(first[s]) { renderMono(plan.makeSource(s), into: $0) }
        }
        for c in 0..<layout.outputChannelCount {
            guard let s = layout.signal(forOutputChannel: c), c != first[s] else { continue }
            output.withChannel(first[s]) { source in
                output.withChannel(c) { $0.baseAddress!.update(from: source.baseAddress!, count: plan.frames) }
            }
        }
        // Without pulses or fades the rendered signals are the sustained sound: measure them where they are
        // (same chunks and sums as pass 1) instead of rendering everything a second time.
        let sustainedIsRendered = request.pulses == nil && request.fades == nil
        let measurements = plan.knownMeasurements ?? (sustainedIsRendered
            ? (0..<plan.signalCount).map { s in output.withChannel(first[s]) { measureChunked(UnsafeBufferPointer($0)) } }
            : measure(plan))
        let (signalGains, peak) = gains(for: measurements, plan: plan, request: request)
        var channelGains = [Float](repeating: 1, count: layout.outputChannelCount)
        for c in 0..<layout.outputChannelCount { if let s = layout.signal(forOutputChannel: c) { channelGains[c] = signalGains[s] } }
        return RenderedSound(request: request, buffer: output, gains: channelGains, peak: peak,
                             renderedFrequencyHz: plan.renderedFrequencyHz, notes: plan.notes)
    }

    /// Largest difference, in dB, between a one-pass file's level and the asked level that is kept (half
    /// the 0.01 dB the level promises); a file further off is written again at the measured gain.
    public static let onePassLevelToleranceDB = 0.005

    /// Renders `request` to `path` (WAV or FLAC by extension) in `sampleFormat`, streaming in bounded
    /// memory, so that the file's RMS is the asked level (within ``onePassLevelToleranceDB``; Float
    /// before quantisation). Nothing clips: a render that would is refused, naming the highest level that
    /// fits. The file appears only when complete, with the parameters in its comment tag.
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
        let format = try AudioFileFormat(container: try Container(path: path), sampleFormat: sampleFormat)
        let plan = try SignalPlan(request: request)
        // One pass when it will almost surely land within the tolerance (3 standard deviations).
        let onePass = plan.knownMeasurements == nil && (plan.levelScatterDB.map { 3 * $0 <= onePassLevelToleranceDB } ?? false)

        var written: (gains: [Float], peak: Double) = ([], 0)
        if !onePass {
            written = gains(for: plan.knownMeasurements ?? measure(plan), plan: plan, request: request)
            try refuseClipping(peak: written.peak, levelDBFS: request.levelDBFS, sampleFormat: sampleFormat)
        }
        let comment = Self.comment(for: request, renderedFrequencyHz: plan.renderedFrequencyHz,
                                   renderedModulationHz: plan.renderedModulationHz, format: sampleFormat)
        try AtomicFile.write(to: path) { (temporary: AtomicFile.Temporary) throws(ShadesError) in
            /// Writes the whole file at `gains`; if `measuring`, returns what the signals measured before them.
            func write(_ gains: [Float], measuring: Bool = false) throws(ShadesError) -> [SignalMeasurement]? {
                let output = try AudioFileOutput(file: temporary, sampleRate: Int(request.sampleRate),
                                                 channelCount: plan.layout.outputChannelCount, format: format,
                                                 frameCount: plan.frames, comment: comment)
                let writer = StreamingWriter(plan: plan, gains: gains, sampleFormat: sampleFormat, seed: request.seed,
                                             chunkFrames: chunkFrames, measuring: measuring)
                try writer.run(into: output)
                try output.close()
                return writer.measurements
            }
            guard onePass else {
                _ = try write(written.gains)
                return
            }
            // The expected gain: the stream's level is the asked one, times the modulation's ratio.
            let expected = [Float](repeating: Float(plan.levelRatio), count: plan.signalCount)
            let measured = try write(expected, measuring: true)!
            let exact: (gains: [Float], peak: Double) = gains(for: measured, plan: plan, request: request)
            try refuseClipping(peak: exact.peak, levelDBFS: request.levelDBFS, sampleFormat: sampleFormat)
            let peakAsWritten = zip(measured, expected).map { Double($0.peak) * Double($1) }.max() ?? 0
            let offDB = zip(expected, exact.gains).map { abs(Decibels.fromAmplitude(Double($0) / Double($1))) }.max() ?? 0
            if offDB <= onePassLevelToleranceDB && peakAsWritten <= sampleFormat.clipLimit {
                written = (expected, peakAsWritten)
            } else {
                _ = try write(exact.gains)
                written = exact
            }
        }
        return FileRenderReport(gains: written.gains, rmsDBFS: request.levelDBFS + Decibels.fromAmplitude(plan.levelRatio),
                                peak: written.peak, renderedFrequencyHz: plan.renderedFrequencyHz, notes: plan.notes)
    }

    /// Throws if samples reaching `peak` (linear, after the gain) would clip, naming the highest level that fits.
    static func refuseClipping(peak: Double, levelDBFS: Double, sampleFormat: SampleFormat) throws(ShadesError) {
        let limit = sampleFormat.clipLimit
        guard peak > limit else { return }
        let highest = levelDBFS - Decibels.fromAmplitude(peak / limit)
        throw .runtime("level \(formatNumber(levelDBFS)) dBFS would clip (peak \(formatSigned(Decibels.fromAmplitude(peak), digits: 2)) dBFS in \(sampleFormat.rawValue)); the highest level that fits is \(formatFloor(highest)) dBFS")
    }

    /// Pass 1: every signal's sustained sound rendered chunk by chunk (signals in parallel) and
    /// measured, nothing kept.
    static func measure(_ plan: SignalPlan) -> [SignalMeasurement] {
        let results = ResultSlots<SignalMeasurement>(count: plan.signalCount)
        DispatchQueue.concurrentPerform(iterations: plan.signalCount) { s in
            let source = plan.makeSustainedSource(s)
            let scratch = AudioBuffer(channelCount: 1, frameCapacity: chunkFrames, zeroed: false)
            var total = SignalMeasurement(sumOfSquares: 0, peak: 0)
            for start in stride(from: 0, to: plan.frames, by: chunkFrames) {
                let n = min(chunkFrames, plan.frames - start)
                scratch.withBlock(frames: 0..<n) { block in
                    source.render(into: block)
                    total.add(chunk: UnsafeBufferPointer(block.channel(0)))
                }
            }
            results[s] = total
        }
        return results.values
    }

    /// The same measurement over samples in memory (same chunks, same order, same sums as pass 1).
    static func measureChunked(_ samples: UnsafeBufferPointer<Float>) -> SignalMeasurement {
        var total = SignalMeasurement(sumOfSquares: 0, peak: 0)
        for start in stride(from: 0, to: samples.count, by: chunkFrames) {
            total.add(chunk: UnsafeBufferPointer(rebasing: samples[start..<min(samples.count, start + chunkFrames)]))
        }
        return total
    }

    /// Gain per signal bringing its sustained RMS to the asked level, and the resulting peak over all
    /// signals (pulses and fades only lower it).
    static func gains(for measurements: [SignalMeasurement], plan: SignalPlan, request: RenderRequest) -> ([Float], Double) {
        let target = Decibels.amplitude(request.levelDBFS) * plan.levelRatio
        var peak = 0.0
        let gains = measurements.map { m -> Float in
            let rms = (m.sumOfSquares / Double(plan.frames)).squareRoot()
            let gain = rms > 0 ? Float(target / rms) : 1
            peak = max(peak, Double(m.peak) * Double(gain))
            return gain
        }
        return (gains, peak)
    }

    /// The comment tag: every parameter needed to render the file again.
    public static func comment(for r: RenderRequest, renderedFrequencyHz: Double?, renderedModulationHz: Double? = nil,
                               format: SampleFormat) -> String {
        var text = "\(AudioFileWriter.software) render \(r.sound.summary)"
        if let f = renderedFrequencyHz, case .tone(let asked) = r.sound, f != asked { text += " rendered_frequency=\(f)Hz" }
        if let m = r.modulation {
            text += " " + m.summary
            if let applied = renderedModulationHz, applied != m.rateHz { text += " rendered_am=\(applied)Hz" }
        }
        for n in r.notches ?? [] {
            text += " notch=\(formatNumber(n.centreHz))Hz notch_width=\(formatNumber(n.widthOctaves))oct"
            if n.edgeBoostDB > 0 { text += " edge_boost=\(formatNumber(n.edgeBoostDB))dB edge_width=\(formatNumber(n.edgeWidthOctaves))oct" }
        }
        if let p = r.pulses { text += " pulse=" + p.summary }
        if let f = r.fades { text += " fade_in/out=" + f.summary }
        text += " duration=\(formatNumber(r.durationSeconds))s rate=\(formatNumber(r.sampleRate)) channels=\(r.layout.rawValue)"
        text += " level=\(formatNumber(r.levelDBFS))dBFS seed=\(r.seed) loop=\(r.loop) format=\(format.rawValue)"
        return text
    }

    static func renderMono(_ source: some AudioSource, into channel: UnsafeMutableBufferPointer<Float>) {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: 1) { pointers in
            pointers[0] = channel.baseAddress!
            source.render(into: AudioBlock(channels: UnsafeBufferPointer(pointers), frameCount: channel.count))
        }
    }
}

/// One result per parallel iteration: each thread writes its own slot, and the caller reads them after
/// joining the threads (`concurrentPerform` returning, a group wait).
///
/// The slots are plain memory, not an array in a variable: writing one element of an array held in a
/// shared variable is a modifying access of the whole variable, a race between the workers even when each
/// writes its own index (ThreadSanitizer: "Swift access race"). A `Mutex` around the array is correct too,
/// but ThreadSanitizer does not see its futex on Linux and reports the same race.
final class ResultSlots<T: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<T?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    subscript(index: Int) -> T {
        get { slots[index]! }
        set {
            precondition(index >= 0 && index < count, "slot \(index) of \(count)")
            slots[index] = newValue
        }
    }

    var values: [T] { (0..<count).map { slots[$0]! } }
}


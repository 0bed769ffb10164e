import CEBUR128
import ShadesDSP
import ShadesPlatform

/// Loudness per EBU R 128 / ITU-R BS.1770-4, measured by libebur128: integrated loudness, loudness range,
/// true peak and sample peak of a stream fed block by block.
///
/// This is the only file that calls libebur128 (`ebur128_init`, `ebur128_set_channel`,
/// `ebur128_add_frames_float`, `ebur128_loudness_global`, `ebur128_loudness_range`, `ebur128_true_peak`,
/// `ebur128_sample_peak`). libebur128 cuts the stream into its own 100 ms steps, so the result does not
/// depend on how the caller splits the stream into blocks.
///
/// Channel map: one channel is centre (weight 1) or, with `dualMono` (the default), `EBUR128_DUAL_MONO`
/// (weight 2, +3.01 dB): the EBU convention for a mono signal reproduced in both ears or on two
/// loudspeakers, so a mono file reads the same as the diotic stereo file made from it. ffmpeg's `ebur128`
/// filter and most tools read mono with weight 1, 3.01 LU lower. Two channels are left and right; three or
/// more follow libebur128's default map (L, R, C, LFE unused, Ls, Rs).
///
/// Memory: integrated loudness and loudness range keep one Double per 100 ms step (about 0.6 MB per hour
/// for the two lists), so a two-hour file stays small; true-peak and filter state are fixed.
///
/// Cost (10 min of 48 kHz stereo, this VM): about 0.55 s without true peak, 1.85 s with it; libebur128's
/// 4× true-peak interpolator is a scalar Double loop. Where speed matters, pass `truePeak: false` and
/// take dBTP from a SIMD interpolator (ShadesDSP's `TruePeakMeter`), keeping this one as the reference.
///
/// Not thread-safe: feed one meter from one thread at a time.
package final class LoudnessMeter {
    /// Channels per frame.
    package let channelCount: Int
    /// Sample rate in Hz.
    package let sampleRate: Double
    /// Whether a single channel counts twice (EBU dual mono).
    package let dualMono: Bool
    /// Whether true peak is measured (4× oversampling below 96 kHz, 2× below 192 kHz).
    package let measuresTruePeak: Bool
    /// Whether loudness range is measured (its 3 s short-term energies).
    package let measuresRange: Bool
    /// Frames added so far.
    package private(set) var frameCount = 0

    private var state: UnsafeMutablePointer<ebur128_state>?
    /// Interleaving space for planar input, grown on demand.
    private var scratch = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)

    /// Largest channel count accepted.
    package static let maximumChannelCount = 64

    /// - Parameters:
    ///   - channelCount: channels per frame, 1 … 64.
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - dualMono: for one channel, count it twice (EBU dual mono); ignored for two or more channels.
    ///   - truePeak: measure true peak (dBTP); costs about three times the rest of the meter.
    ///   - range: measure loudness range (LU; else reported as 0): libebur128 sums a 3 s window every
    ///     second, three more squares per sample beside integrated loudness's four (a third of the meter).
    package init(channelCount: Int, sampleRate: Double, dualMono: Bool = true, truePeak: Bool = true,
                 range: Bool = true) throws(ShadesError) {
        do throws(ShadesError) {
            try Parameter.channels.check(Double(channelCount), within: ParameterRange(1...Double(Self.maximumChannelCount)))
            try Parameter.rate.check(sampleRate, within: .wholeSampleRates)
        } catch { throw .invalidParameter(error) }
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.dualMono = dualMono
        self.measuresTruePeak = truePeak
        measuresRange = range
        // Without range, still short-term mode: its 3 s ring of filtered samples is range's, and the 400 ms
        // block sums wrap around it at the same places, so integrated loudness has the same bits either way
        // (with only a 400 ms ring they differ in the last digits).
        var mode = Int32(EBUR128_MODE_I.rawValue) | Int32(EBUR128_MODE_SAMPLE_PEAK.rawValue)
            | Int32(range ? EBUR128_MODE_LRA.rawValue : EBUR128_MODE_S.rawValue)
        if truePeak { mode |= Int32(EBUR128_MODE_TRUE_PEAK.rawValue) }
        guard let state = ebur128_init(UInt32(channelCount), UInt(sampleRate), mode) else { throw .outOfMemory }
        self.state = state
        switch channelCount {
        case 1:
            try check(ebur128_set_channel(state, 0, Int32(dualMono ? EBUR128_DUAL_MONO.rawValue : EBUR128_CENTER.rawValue)),
                      "ebur128_set_channel")
        case 2:
            try check(ebur128_set_channel(state, 0, Int32(EBUR128_LEFT.rawValue)), "ebur128_set_channel")
            try check(ebur128_set_channel(state, 1, Int32(EBUR128_RIGHT.rawValue)), "ebur128_set_channel")
        default:
            break
        }
    }

    deinit {
        ebur128_destroy(&state)
        scratch.deallocate()
    }

    /// Adds `frames` interleaved frames (`channelCount` samples each, full scale ±1.0).
    package func add(interleaved samples: UnsafeBufferPointer<Float>, frames: Int) throws(ShadesError) {
        guard frames >= 0, frames * channelCount <= samples.count else {
            throw .mismatchedInput("\(frames) frames of \(channelCount) channels need \(frames * channelCount) samples, got \(samples.count)")
        }
        guard frames > 0, let base = samples.baseAddress else { return }
        try check(ebur128_add_frames_float(state, base, frames), "ebur128_add_frames_float")
        frameCount += frames
    }

    /// Adds planar channels (one buffer per channel, all of the same length).
    package func add(_ channels: [UnsafeBufferPointer<Float>]) throws(ShadesError) {
        guard channels.count == channelCount else {
            throw .mismatchedInput("got \(channels.count) channels, the meter has \(channelCount)")
        }
        let frames = channels[0].count
        guard channels.allSatisfy({ $0.count == frames }) else {
            throw .mismatchedInput("channels of different lengths: \(channels.map(\.count))")
        }
        try addPlanar(frames: frames) { channels[$0] }
    }

    /// Adds the frames of `block` (whose channel count must match).
    package func add(_ block: AudioBlock) throws(ShadesError) {
        guard block.channelCount == channelCount else {
            throw .mismatchedInput("got \(block.channelCount) channels, the meter has \(channelCount)")
        }
        try addPlanar(frames: block.frameCount) { UnsafeBufferPointer(block.channel($0)) }
    }

    /// Interleaves up to 8,192 frames at a time into the scratch buffer and adds them.
    private func addPlanar(frames: Int, channel: (Int) -> UnsafeBufferPointer<Float>) throws(ShadesError) {
        let step = 8192
        if scratch.count < min(frames, step) * channelCount {
            scratch.deallocate()
            scratch = .allocate(capacity: step * channelCount)
        }
        var done = 0
        while done < frames {
            let n = min(step, frames - done)
            for c in 0..<channelCount {
                let source = channel(c)
                var j = c
                for i in done..<done + n {
                    scratch[j] = source[i]
                    j += channelCount
                }
            }
            try add(interleaved: UnsafeBufferPointer(rebasing: scratch[0..<n * channelCount]), frames: n)
            done += n
        }
    }

    /// The measurements over everything added so far (the meter keeps running).
    package func result() throws(ShadesError) -> LoudnessReport {
        var integrated = 0.0
        try check(ebur128_loudness_global(state, &integrated), "ebur128_loudness_global")
        var range = 0.0
        if measuresRange { try check(ebur128_loudness_range(state, &range), "ebur128_loudness_range") }
        var samplePeaks: [Double?] = []
        var truePeaks: [Double?] = []
        for c in 0..<channelCount {
            var peak = 0.0
            try check(ebur128_sample_peak(state, UInt32(c), &peak), "ebur128_sample_peak")
            samplePeaks.append(Self.decibels(amplitude: peak))
            if measuresTruePeak {
                try check(ebur128_true_peak(state, UInt32(c), &peak), "ebur128_true_peak")
                truePeaks.append(Self.decibels(amplitude: peak))
            }
        }
        return LoudnessReport(
            channelCount: channelCount, sampleRate: sampleRate, durationSeconds: Double(frameCount) / sampleRate,
            dualMono: channelCount == 1 && dualMono,
            integratedLUFS: integrated.isFinite ? integrated : nil,
            loudnessRangeLU: range.isFinite ? range : 0,
            truePeakDBTP: measuresTruePeak ? Self.maximum(truePeaks) : nil,
            truePeakDBTPPerChannel: measuresTruePeak ? truePeaks : nil,
            samplePeakDBFS: Self.maximum(samplePeaks),
            samplePeakDBFSPerChannel: samplePeaks)
    }

    /// Gain in dB that moves `measuredLUFS` to `targetLUFS` (loudness scales 1 LU per dB of gain, apart
    /// from blocks crossing the −70 LUFS absolute gate).
    package static func gainToReach(targetLUFS: Double, measuredLUFS: Double) -> Double {
        targetLUFS - measuredLUFS
    }

    private static func decibels(amplitude: Double) -> Double? {
        amplitude > 0 ? Decibels.fromAmplitude(amplitude) : nil
    }

    private static func maximum(_ values: [Double?]) -> Double? {
        values.compactMap { $0 }.max()
    }

    private func check(_ code: Int32, _ function: String) throws(ShadesError) {
        switch code {
        case Int32(EBUR128_SUCCESS.rawValue): return
        case Int32(EBUR128_ERROR_NOMEM.rawValue): throw .outOfMemory
        default: throw .library(function: function, code: code)
        }
    }
}

/// What `LoudnessMeter` measured. Levels of silence (−∞) are nil.
public struct LoudnessReport: Encodable, Sendable, Equatable {
    package let channelCount: Int
    /// Hz.
    package let sampleRate: Double
    /// Seconds of audio measured.
    package let durationSeconds: Double
    /// Whether a mono signal was counted twice (EBU dual mono, +3.01 dB).
    package let dualMono: Bool
    /// Gated integrated loudness in LUFS (BS.1770-4); nil when nothing passes the −70 LUFS absolute gate
    /// (silence, or shorter than one 400 ms block).
    public let integratedLUFS: Double?
    /// Loudness range in LU (EBU Tech 3342); 0 for signals shorter than a few seconds, or when not measured.
    public let loudnessRangeLU: Double
    /// Largest true peak over all channels in dBTP; nil when not measured or silent.
    public let truePeakDBTP: Double?
    /// True peak per channel in dBTP (nil entries for silent channels); nil when not measured.
    package let truePeakDBTPPerChannel: [Double?]?
    /// Largest sample magnitude over all channels in dBFS (full scale 1.0); nil when silent.
    public let samplePeakDBFS: Double?
    /// Sample peak per channel in dBFS (nil for silent channels).
    package let samplePeakDBFSPerChannel: [Double?]
}

/// A loudness measurement that could not be made: one line beginning "loudness: ".
extension ShadesError {
    /// A channel count or sample rate the meter does not accept.
    static func invalidParameter(_ error: ShadesError) -> ShadesError { error.within("loudness") }
    /// Input that does not fit the meter (channel count, lengths).
    static func mismatchedInput(_ message: String) -> ShadesError { .usage("loudness: \(message)") }
    /// libebur128 could not allocate memory.
    static var outOfMemory: ShadesError { .runtime("loudness: libebur128 is out of memory") }
    /// A libebur128 function returned an error code (`enum error` in ebur128.h).
    static func library(function: String, code: Int32) -> ShadesError {
        .runtime("loudness: \(function) failed with libebur128 error \(code)")
    }
}

import ShadesPlatform

// Fades and pulses: gain envelopes made of raised-cosine ramps, sampled at absolute frame positions.
//
// Every envelope here is a continuous-time curve sampled at whole frames: a ramp of N frames starting at
// frame s has gain 0.5 − 0.5·cos(π·(n − s)/N) at frame n (0 at s, 1 at s + N), and a ramp ending at frame e
// is its mirror image, 0.5 − 0.5·cos(π·(e − n)/N) (1 at e − N, 0 at e). So a fade-out ends at frame e with
// gain 0 (the first silent frame), and a sound faded in and out is symmetric in time.

/// Gain of a raised-cosine ramp `x` frames into a ramp of `frames` frames: 0.5 − 0.5·cos(π·x/frames),
/// and 1 from `x ≥ frames` on.
@inline(__always) func raisedCosineGain(_ x: Int, rampFrames frames: Int) -> Double {
    x >= frames ? 1 : 0.5 - 0.5 * cos(Double.pi * Double(x) / Double(frames))
}

/// One stretch of an envelope, up to (not including) frame `end`.
struct EnvelopePiece {
    enum Shape {
        case silent
        case unity
        /// Rising ramp of `frames` frames that starts (gain 0) at absolute frame `start`.
        case rise(start: Int, frames: Int)
        /// Falling ramp of `frames` frames that ends (gain 0) at absolute frame `end`.
        case fall(end: Int, frames: Int)
    }
    var shape: Shape
    var end: Int
}

/// Applies envelope pieces to blocks through a small preallocated gain buffer.
///
/// A class that frees its buffer itself: its owners create it while their initialisers can still throw,
/// and a class whose initialiser throws never runs its `deinit` (a failed fade or pulse check leaked the
/// buffer, found by the preset fuzzer).
final class EnvelopeApplier {
    static let scratchFrames = 256
    /// Longest ramp whose gains are tabulated (1.4 s at 48 kHz; 256 KB): pulses repeat their ramps.
    static let longestTabulatedRamp = 65_536
    private let scratch: UnsafeMutablePointer<Float>
    /// Gains 0 … R of the one ramp length R that repeats (`raisedCosineGain(x, rampFrames: R)` as Float:
    /// the same values, without a cosine per frame), or empty.
    private let rampTable: UnsafeMutableBufferPointer<Float>

    /// An applier; `repeatedRampFrames` (a pulse's ramp length, in frames) has its gains tabulated.
    init(repeatedRampFrames: Int? = nil) {
        scratch = .allocate(capacity: Self.scratchFrames)
        scratch.initialize(repeating: 0, count: Self.scratchFrames)
        if let ramp = repeatedRampFrames, ramp > 0, ramp <= Self.longestTabulatedRamp {
            rampTable = .allocate(capacity: ramp + 1)
            for x in 0...ramp { rampTable[x] = Float(raisedCosineGain(x, rampFrames: ramp)) }
        } else {
            rampTable = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
    }

    deinit {
        scratch.deallocate()
        rampTable.deallocate()
    }

    /// Gain `x` frames into a ramp of `frames` frames (0 ≤ x ≤ frames), from the table when it holds that ramp.
    @inline(__always) private func rampGain(_ x: Int, rampFrames frames: Int) -> Float {
        frames == rampTable.count - 1 ? rampTable[x] : Float(raisedCosineGain(x, rampFrames: frames))
    }

    /// Renders `source` into `block` (whose frame 0 is absolute frame `position`) shaped by `piece`,
    /// silent from absolute frame `end` on (the source is not rendered there).
    func render(_ source: any AudioSource, into block: AudioBlock, position: Int, end: Int,
                piece: (_ frame: Int) -> EnvelopePiece) {
        let live = max(0, min(block.frameCount, end - position))
        if live > 0 { source.render(into: block.frames(0..<live)) }
        if live < block.frameCount { block.frames(live..<block.frameCount).clear() }
        var done = 0
        while done < live {
            let current = piece(position + done)
            let count = min(live - done, current.end - (position + done))
            apply(current.shape, to: block, frames: done..<done + count, blockStart: position)
            done += count
        }
    }

    /// Applies `shape` to frames `range` of `block`, whose frame 0 is absolute frame `blockStart`.
    func apply(_ shape: EnvelopePiece.Shape, to block: AudioBlock, frames range: Range<Int>, blockStart: Int) {
        switch shape {
        case .unity:
            return
        case .silent:
            block.frames(range).clear()
        case .rise, .fall:
            var done = range.lowerBound
            while done < range.upperBound {
                let count = min(range.upperBound - done, Self.scratchFrames)
                for i in 0..<count {
                    let frame = blockStart + done + i
                    let gain: Float
                    switch shape {
                    case let .rise(start, frames): gain = rampGain(frame - start, rampFrames: frames)
                    case let .fall(end, frames): gain = rampGain(end - frame, rampFrames: frames)
                    default: gain = 1
                    }
                    scratch[i] = gain
                }
                block.multiply(frames: done..<done + count, by: UnsafePointer(scratch))
                done += count
            }
        }
    }
}

/// A source faded in from silence at frame 0 and out to silence at `totalFrames`, with raised-cosine
/// ramps; silence after `totalFrames` (the source is not rendered past it).
///
/// Fade-in gain at frame n < Nin: 0.5 − 0.5·cos(π·n/Nin) (frame 0 is silent). Fade-out gain at frame n
/// with T − Nout < n < T: 0.5 − 0.5·cos(π·(T − n)/Nout), the mirror image: frame T is the first silent one.
/// Ramp lengths are the durations rounded to whole frames.
package final class FadedSource: AudioSource {
    /// The faded source; this modifier renders it and owns its position from now on.
    package let source: any AudioSource
    /// Frames in the fade-in ramp (Nin).
    package let fadeInFrames: Int
    /// Frames in the fade-out ramp (Nout).
    package let fadeOutFrames: Int
    /// Frames until silence (T): the fade-out ends here.
    package let totalFrames: Int
    package var sampleRate: Double { source.sampleRate }
    package var channelCount: Int { source.channelCount }
    private let applier = EnvelopeApplier()
    private var position = 0

    /// - Parameters:
    ///   - fadeInSeconds: raised-cosine fade-in from frame 0, in seconds (≥ 0; 0 for none).
    ///   - fadeOutSeconds: raised-cosine fade-out ending at `totalFrames`, in seconds (≥ 0; 0 for none).
    ///   - totalFrames: frames until silence; both fades together must fit in it.
    package convenience init(source: any AudioSource, fadeInSeconds: Double, fadeOutSeconds: Double,
                            totalFrames: Int) throws(ShadesError) {
        try self.init(source: source, fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds,
                      totalFrames: totalFrames, parameters: (.fadeIn, .fadeOut))
    }

    /// The same raised-cosine fade of `fadeSeconds` (≥ 0, e.g. 0.05) at both ends.
    package convenience init(source: any AudioSource, fadeSeconds: Double, totalFrames: Int) throws(ShadesError) {
        try self.init(source: source, fadeInSeconds: fadeSeconds, fadeOutSeconds: fadeSeconds,
                      totalFrames: totalFrames, parameters: (.fade, .fade))
    }

    private init(source: any AudioSource, fadeInSeconds: Double, fadeOutSeconds: Double, totalFrames: Int,
                 parameters: (fadeIn: Parameter, fadeOut: Parameter)) throws(ShadesError) {
        let rate = source.sampleRate
        try Self.validate(fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds, totalFrames: totalFrames, sampleRate: rate,
                          parameters: parameters)
        self.source = source
        self.totalFrames = totalFrames
        let fadeIn = min(totalFrames, Int((fadeInSeconds * rate).rounded()))
        fadeInFrames = fadeIn
        fadeOutFrames = min(totalFrames - fadeIn, Int((fadeOutSeconds * rate).rounded()))
    }

    /// Checks the fades against `totalFrames` at `sampleRate` (each within it, both together too);
    /// `parameters` name them.
    package static func validate(fadeInSeconds: Double, fadeOutSeconds: Double, totalFrames: Int, sampleRate rate: Double,
                                 parameters: (fadeIn: Parameter, fadeOut: Parameter) = (.fadeIn, .fadeOut)) throws(ShadesError) {
        guard totalFrames >= 0 else {
            throw ShadesError(.duration, .outOfRange, value: .number(Double(totalFrames), .frames),
                              allowed: AllowedValues(range: .atLeast(0, unit: .frames)))
        }
        let totalSeconds = Double(totalFrames) / rate
        let duration = ParameterRange(0...totalSeconds, unit: .seconds)
        for (parameter, seconds) in [(parameters.fadeIn, fadeInSeconds), (parameters.fadeOut, fadeOutSeconds)] {
            try parameter.check(seconds, within: duration, note: "(the duration)")
        }
        guard fadeInSeconds + fadeOutSeconds <= totalSeconds * (1 + 1e-12) else {
            let both = "\(ParameterValue.number(fadeInSeconds, .seconds)) in + \(ParameterValue.number(fadeOutSeconds, .seconds)) out"
            throw ShadesError(.fade, .outOfRange, value: .text(both),
                              allowed: AllowedValues(range: .atMost(totalSeconds, unit: .seconds), note: "together (the duration)"))
        }
    }

    /// The envelope piece holding absolute frame `frame`.
    private func piece(at frame: Int) -> EnvelopePiece {
        let fallStart = fadeOutFrames > 0 ? totalFrames - fadeOutFrames + 1 : totalFrames
        if frame < fadeInFrames { return EnvelopePiece(shape: .rise(start: 0, frames: fadeInFrames), end: fadeInFrames) }
        if frame < fallStart { return EnvelopePiece(shape: .unity, end: fallStart) }
        if frame < totalFrames { return EnvelopePiece(shape: .fall(end: totalFrames, frames: fadeOutFrames), end: totalFrames) }
        return EnvelopePiece(shape: .silent, end: .max)
    }

    /// Prepares its source.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        applier.render(source, into: block, position: position, end: totalFrames) { piece(at: $0) }
        position += block.frameCount
    }
}

/// Pulsed (gated) sound for audiometry: on for `onSeconds`, off for `offSeconds`, with raised-cosine
/// rise and fall inside the on time; silence after `pulseCount` pulses.
///
/// Audiometer convention: rise/fall 20–50 ms, on and off about 200–250 ms. Pulse k starts at frame
/// round(k·(on + off)·rate), computed from absolute time, so pulse boundaries never drift; every pulse has
/// the same shape (on time and ramps rounded to whole frames once). In pulse k starting at frame s, with
/// on frames L and ramp frames R, frame n has gain 0.5 − 0.5·cos(π·(n − s)/R) on the rise, 1 in between,
/// 0.5 − 0.5·cos(π·(s + L − n)/R) on the fall and 0 from s + L until the next pulse. The source keeps
/// running through the off time (a gated continuous tone).
package final class PulsedSource: AudioSource {
    /// The gated source; this modifier renders it and owns its position from now on.
    package let source: any AudioSource
    /// On time per pulse (ramps included), in seconds.
    package let onSeconds: Double
    /// Silent time between pulses, in seconds.
    package let offSeconds: Double
    /// Raised-cosine rise and fall time, in seconds.
    package let rampSeconds: Double
    /// Pulses before silence, or nil for endless pulses.
    package let pulseCount: Int?
    /// On frames per pulse (L), ramps included.
    package let onFrames: Int
    /// Frames of each ramp (R), at most half the on frames.
    package let rampFrames: Int
    package var sampleRate: Double { source.sampleRate }
    package var channelCount: Int { source.channelCount }
    private let periodFrames: Double          // (on + off)·rate, not rounded
    private let applier: EnvelopeApplier
    private var position = 0
    private var pulse = 0                     // the pulse holding `position`: start(pulse) ≤ position

    /// - Parameters:
    ///   - onSeconds: on time per pulse including the ramps, in seconds (> 0, at least one frame).
    ///   - offSeconds: silent gap between pulses, in seconds (≥ 0).
    ///   - rampSeconds: raised-cosine rise and fall time, in seconds, 0 … onSeconds/2.
    ///   - pulseCount: number of pulses (≥ 1), or nil for endless pulses.
    package init(source: any AudioSource, onSeconds: Double = 0.2, offSeconds: Double = 0.2,
                rampSeconds: Double = 0.025, pulseCount: Int? = nil) throws(ShadesError) {
        let rate = source.sampleRate
        try Self.validate(onSeconds: onSeconds, offSeconds: offSeconds, rampSeconds: rampSeconds, pulseCount: pulseCount, sampleRate: rate)
        self.source = source
        self.onSeconds = onSeconds
        self.offSeconds = offSeconds
        self.rampSeconds = rampSeconds
        self.pulseCount = pulseCount
        onFrames = Int((onSeconds * rate).rounded())
        rampFrames = min(onFrames / 2, Int((rampSeconds * rate).rounded()))
        periodFrames = (onSeconds + offSeconds) * rate
        applier = EnvelopeApplier(repeatedRampFrames: rampFrames)
    }

    /// Checks on, off and ramp times and the count at `sampleRate`: an on time of at least one frame, ramps
    /// that fit in it.
    package static func validate(onSeconds: Double, offSeconds: Double, rampSeconds: Double, pulseCount: Int?,
                                 sampleRate rate: Double) throws(ShadesError) {
        guard onSeconds.isFinite, onSeconds > 0, (onSeconds * rate).rounded() >= 1 else {
            throw Parameter.pulseOn.outOfRange(onSeconds, range: .atLeast(1 / rate, unit: .seconds), note: "(one frame)")
        }
        try Parameter.pulseOn.check(onSeconds)  // at most 24 h: its frames are counted
        try Parameter.pulseOff.check(offSeconds)
        guard rampSeconds.isFinite, rampSeconds >= 0, 2 * rampSeconds <= onSeconds * (1 + 1e-12) else {
            let longer = rampSeconds.isFinite && rampSeconds > 0
            throw Parameter.ramp.error(
                longer ? .other("is longer than half the \(ParameterValue.number(onSeconds, .seconds)) pulse") : .outOfRange,
                value: .number(rampSeconds, .seconds),
                allowed: AllowedValues(range: ParameterRange(0...onSeconds / 2, unit: .seconds), note: "so rise and fall fit in the on time"))
        }
        if let pulseCount { try Parameter.pulseCount.check(Double(pulseCount)) }
    }

    /// First frame of pulse `pulse` (0-based): round(pulse·(on + off)·rate).
    package func pulseStartFrame(_ pulse: Int) -> Int {
        Int((Double(pulse) * periodFrames).rounded())
    }

    /// The frame from which all is silent (end of the last pulse), or nil for endless pulses.
    package var endFrame: Int? {
        pulseCount.map { pulseStartFrame($0 - 1) + onFrames }
    }

    /// The envelope piece holding absolute frame `frame` (≥ the current pulse's start).
    private func piece(at frame: Int) -> EnvelopePiece {
        while pulse + 1 < (pulseCount ?? .max) && pulseStartFrame(pulse + 1) <= frame { pulse += 1 }
        let start = pulseStartFrame(pulse)
        let next = pulse + 1 < (pulseCount ?? .max) ? pulseStartFrame(pulse + 1) : .max
        let onEnd = start + onFrames
        let riseEnd = start + rampFrames
        let fallStart = rampFrames > 0 ? onEnd - rampFrames + 1 : onEnd
        let piece: EnvelopePiece
        if frame < riseEnd {
            piece = EnvelopePiece(shape: .rise(start: start, frames: rampFrames), end: riseEnd)
        } else if frame < fallStart {
            piece = EnvelopePiece(shape: .unity, end: fallStart)
        } else if frame < onEnd {
            piece = EnvelopePiece(shape: .fall(end: onEnd, frames: rampFrames), end: onEnd)
        } else {
            piece = EnvelopePiece(shape: .silent, end: next)
        }
        return EnvelopePiece(shape: piece.shape, end: min(piece.end, next))
    }

    /// Prepares its source.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        applier.render(source, into: block, position: position, end: endFrame ?? .max) { piece(at: $0) }
        position += block.frameCount
    }
}

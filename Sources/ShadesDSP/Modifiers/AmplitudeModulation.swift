import CShadesKernels
import ShadesPlatform

/// Which level amplitude modulation keeps equal to the unmodulated carrier's.
public enum AmplitudeModulationLevel: String, CaseIterable, Sendable, Codable {
    /// Same RMS as the carrier: the gain curve is divided by √(1 + m²/2).
    case rms
    /// Same peak as the carrier: the gain curve is divided by (1 + m), so its largest value is 1.
    case peak
}

/// Sinusoidal amplitude modulation of any source: x(t) = c(t)·(1 + m·sin(2π·fm·t + φ)) / k, where k keeps
/// the carrier's RMS (√(1 + m²/2)) or its peak (1 + m).
///
/// The 10 Hz AM stimuli of Neff et al. 2017 (Front. Aging Neurosci. 9:130), Neff et al. 2019 (Trends
/// Hear. 23; tones at the tinnitus frequency modulated at 10 or 40 Hz) and Schoisswohl et al. 2019
/// (Audiol. Neurotol. 24:309; AM noise).
///
/// Frame n has t = n / sampleRate counted from the carrier's frame 0. The gain curve is made in segments
/// of ``segmentFrames`` frames aligned to frame 0: each segment's phase is computed afresh in Double
/// cycles from its absolute frame index, and eight lanes rotate a Double phasor inside it (the C kernel
/// `am_gains`, four segments at a time). So the curve
/// equals the formula to Float precision after any number of hours, and the output does not depend on
/// how the caller slices its render calls.
package final class AmplitudeModulatedSource: AudioSource {
    /// The modulated source; this modifier renders it and owns its position from now on.
    package let carrier: any AudioSource
    /// Modulation rate fm in Hz (``allowedRateHz``).
    package let rateHz: Double
    /// Modulation depth m, 0 … 1 (1: the gain reaches 0 once per cycle).
    package let depth: Double
    /// Start phase φ of the sine, in radians.
    package let startPhase: Double
    /// The level kept equal to the carrier's.
    package let keep: AmplitudeModulationLevel
    /// The linear factor 1/k applied to (1 + m·sin): 1/√(1 + m²/2) or 1/(1 + m).
    package let levelFactor: Double
    package var sampleRate: Double { carrier.sampleRate }
    package var channelCount: Int { carrier.channelCount }

    /// Allowed modulation rates, in Hz.
    package static let allowedRateHz: ClosedRange<Double> = 0.5...100
    /// Frames per gain segment (segments start at multiples of this from frame 0).
    package static let segmentFrames = 1024

    private let cyclesPerFrame: Double
    private let startCycles: Double           // φ / 2π reduced to [0, 1)
    private let stepCosine: Double, stepSine: Double   // the phasors' turn per 8 frames
    private let laneTurns: UnsafeMutablePointer<Double>   // lane l's turn (l frames): cosines 0 … 7, sines 8 … 15
    private let gains: UnsafeMutablePointer<Float>  // gain curve of segments 4·`gainGroup` … 4·`gainGroup` + 3
    private var gainGroup = -1
    private var position = 0                  // absolute frame of the next render call

    /// - Parameters:
    ///   - carrier: any source; its frames are multiplied by the gain curve.
    ///   - rateHz: modulation rate in Hz, 0.5 … 100 (default 10 Hz, Neff 2017).
    ///   - depth: modulation depth m, 0 … 1 (default 1).
    ///   - startPhase: phase φ of the modulating sine at frame 0, in radians (default 0).
    ///   - keep: keep the carrier's RMS (default) or its peak.
    package init(carrier: any AudioSource, rateHz: Double = 10, depth: Double = 1, startPhase: Double = 0,
                keep: AmplitudeModulationLevel = .rms) throws(ShadesError) {
        try Self.validate(rateHz: rateHz, depth: depth, startPhase: startPhase)
        self.carrier = carrier
        self.rateHz = rateHz
        self.depth = depth
        self.startPhase = startPhase
        self.keep = keep
        levelFactor = Self.levelFactor(depth: depth, keep: keep)
        cyclesPerFrame = rateHz / carrier.sampleRate
        let cycles = startPhase / (2 * Double.pi)
        startCycles = cycles - cycles.rounded(.down)
        let step = 2 * Double.pi * 8 * cyclesPerFrame
        (stepCosine, stepSine) = (cos(step), sin(step))
        laneTurns = .allocate(capacity: 16)
        shades_modulation_lane_turns(cyclesPerFrame, laneTurns, laneTurns + 8)
        gains = .allocate(capacity: 4 * Self.segmentFrames)
        gains.initialize(repeating: 0, count: 4 * Self.segmentFrames)
    }

    deinit {
        gains.deallocate()
        laneTurns.deallocate()
    }

    /// Checks the rate, depth and start phase against their definitions.
    package static func validate(rateHz: Double, depth: Double, startPhase: Double) throws(ShadesError) {
        try Parameter.amRate.check(rateHz)
        try Parameter.amDepth.check(depth)
        try Parameter.amPhase.check(startPhase)
    }

    /// The factor 1/k that keeps the level: 1/√(1 + m²/2) for ``AmplitudeModulationLevel/rms``,
    /// 1/(1 + m) for ``AmplitudeModulationLevel/peak``.
    package static func levelFactor(depth: Double, keep: AmplitudeModulationLevel) -> Double {
        switch keep {
        case .rms: return 1 / (1 + depth * depth / 2).squareRoot()
        case .peak: return 1 / (1 + depth)
        }
    }

    /// The exact gain (Double) applied to absolute frame `frame`: (1 + m·sin(2π·fm·n/rate + φ))·levelFactor.
    /// A pure function of the parameters, for tests and plots.
    package func gain(atFrame frame: Int) -> Double {
        var cycles = Double(frame) * rateHz / sampleRate + startPhase / (2 * Double.pi)
        cycles -= cycles.rounded(.down)
        return (1 + depth * sin(2 * Double.pi * cycles)) * levelFactor
    }

    /// The rate nearest `rateHz` with a whole number of modulation cycles (at least one) in `frameCount`
    /// frames, so a loop of that length is seamless. For a very short loop the result can exceed
    /// ``allowedRateHz``.
    package static func loopRate(near rateHz: Double, frameCount: Int, sampleRate: Double) -> Double {
        let cycles = max(1, (rateHz * Double(frameCount) / sampleRate).rounded())
        return cycles * sampleRate / Double(frameCount)
    }

    /// Prepares its carrier.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { carrier.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        carrier.render(into: block)
        let groupFrames = 4 * Self.segmentFrames
        var done = 0
        while done < block.frameCount {
            let frame = position + done
            let group = frame / groupFrames
            let offset = frame - group * groupFrames
            if group != gainGroup {
                fillGains(firstSegment: 4 * group)
                gainGroup = group
            }
            let count = min(block.frameCount - done, groupFrames - offset)
            block.multiply(frames: done..<done + count, by: UnsafePointer(gains + offset))
            done += count
        }
        position += block.frameCount
    }

    /// Computes the gain curves of segments `firstSegment` … `firstSegment` + 3 (absolute frames
    /// segment·1024 …) into `gains`: each segment's eight lanes' phasors from its own phase (libm, in C:
    /// `shades_modulation_phasors`, its start turned by each lane's turn), turned in Double by the C kernel
    /// (`am_gains`, the four segments side by side).
    private func fillGains(firstSegment: Int) {
        var cycles = SIMD4<Double>()
        for k in 0..<4 {
            cycles[k] = Double((firstSegment + k) * Self.segmentFrames) * cyclesPerFrame + startCycles
            cycles[k] -= cycles[k].rounded(.down)
        }
        var phasors = (SIMD32<Double>(), SIMD32<Double>())   // cosines, sines
        withUnsafeBytes(of: &cycles) { segmentCycles in
            withUnsafeMutableBytes(of: &phasors.0) { r in
                withUnsafeMutableBytes(of: &phasors.1) { i in
                    let re = r.baseAddress!.assumingMemoryBound(to: Double.self)
                    let im = i.baseAddress!.assumingMemoryBound(to: Double.self)
                    shades_modulation_phasors(segmentCycles.baseAddress!.assumingMemoryBound(to: Double.self),
                                              laneTurns, laneTurns + 8, re, im)
                    Kernels.table.am_gains!(re, im, stepCosine, stepSine, levelFactor, levelFactor * depth,
                                            Self.segmentFrames, gains)
                }
            }
        }
    }
}

extension AudioBlock {
    /// Multiplies frames `range` of every channel by `gains[0 ..< range.count]`.
    @inline(__always) func multiply(frames range: Range<Int>, by gains: UnsafePointer<Float>) {
        for c in 0..<channelCount {
            Kernels.table.multiply!(channel(c).baseAddress! + range.lowerBound, gains, range.count)
        }
    }
}

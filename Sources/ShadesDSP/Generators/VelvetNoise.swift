import ShadesPlatform

/// Velvet noise (Järveläinen & Karjalainen 2007, "Reverberation modeling using velvet noise", AES 30th
/// Int. Conf.; Välimäki et al. 2013, "Noise analysis of velvet noise", DAFx): a sparse sequence with one
/// impulse of random sign at a random position in each cell of Td = rate / density frames, zero elsewhere.
/// Its spectrum is flat; it sounds smoother than Gaussian noise from about 1,500–2,000 impulses a second.
///
/// Cell k spans frames round(k·Td) ..< round((k + 1)·Td) (computed from k alone, so cells never drift);
/// its impulse sits at round(k·Td) + ⌊u·length⌋ with sign ±, u and the sign drawn from a SplitMix64 keyed
/// by the stream key and k. Every sample is a function of its absolute frame, so any block sizes give the
/// same samples. Every impulse has the amplitude a = 10^(level/20)·√Td, so the RMS over whole cells is
/// the level (one impulse of energy a² per Td frames). Allocation-free; a block costs a fill with zeros
/// and one hash per cell.
package final class VelvetNoiseSource: AudioSource {
    package let sampleRate: Double
    /// One channel: one independent signal (``ChannelLayoutSource`` places the ears).
    package var channelCount: Int { 1 }
    /// Impulses per second.
    package let densityHz: Double
    /// Frames per cell, Td = rate / density (≥ 2).
    package let cellFrames: Double
    /// Amplitude of every impulse (linear).
    package let amplitude: Float
    private let key: UInt64
    private var position = 0

    /// - Parameters:
    ///   - densityHz: impulses per second, 1 … rate / 2 (``Parameter/density``).
    ///   - levelDBFS: RMS level over whole cells, dBFS (the peak is the amplitude, √Td times the RMS).
    ///   - key: the stream key (``SeedStream/noise`` for the seed and the signal).
    package init(densityHz: Double, sampleRate: Double, levelDBFS: Double = -20, key: UInt64) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        try Self.validate(densityHz: densityHz, sampleRate: sampleRate)
        try Parameter.level.check(levelDBFS, within: .finite(unit: .dBFS))
        self.sampleRate = sampleRate
        self.densityHz = densityHz
        cellFrames = sampleRate / densityHz
        amplitude = Float(Decibels.amplitude(levelDBFS) * cellFrames.squareRoot())
        self.key = key
    }

    /// Throws unless 1 ≤ `densityHz` ≤ rate / 2 (a cell of at least two frames).
    package static func validate(densityHz: Double, sampleRate: Double) throws(ShadesError) {
        try Parameter.density.check(densityHz, within: ParameterRange(1...sampleRate / 2, unit: .hertz), note: "(half the sample rate)")
    }

    /// First frame of cell `k`: round(k·Td).
    @inline(__always) package func cellStart(_ k: Int) -> Int { Int((Double(k) * cellFrames).rounded()) }

    /// The impulse of cell `k`: its absolute frame and its sign (+1 or −1).
    @inline(__always) package func impulse(cell k: Int) -> (frame: Int, sign: Float) {
        let start = cellStart(k), length = cellStart(k + 1) - start
        var rng = SplitMix64(seed: key ^ (UInt64(truncatingIfNeeded: k) &* 0xA24B_AED4_963E_E407))
        let word = rng.next()
        // The top bit is the sign; the next 53 bits a uniform u in [0, 1).
        let u = Double((word << 1) >> 11) / Double(1 << 53)
        return (start + min(length - 1, Int(u * Double(length))), word >> 63 == 0 ? 1 : -1)
    }

    /// The cell holding absolute frame `n`.
    package func cell(holding n: Int) -> Int {
        var k = Int((Double(n) / cellFrames).rounded(.down))
        while k > 0 && cellStart(k) > n { k -= 1 }
        while cellStart(k + 1) <= n { k += 1 }
        return k
    }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == 1, "velvet noise renders one signal")
        let out = block.channel(0)
        out.update(repeating: 0)
        let end = position + block.frameCount
        guard block.frameCount > 0 else { return }
        var k = cell(holding: position)
        while cellStart(k) < end {
            let (frame, sign) = impulse(cell: k)
            if frame >= position && frame < end { out[frame - position] = sign * amplitude }
            k += 1
        }
        position = end
    }
}

extension Parameter {
    /// Velvet-noise impulses per second; at most half the sample rate (a cell of two frames).
    package static let density = Parameter(.density, unit: .hertz, range: .atLeast(1, unit: .hertz), default: 2000)
}

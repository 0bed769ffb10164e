import ShadesPlatform

/// A repeating gain pattern of the tinnitus-like sounds: a heartbeat (pulsatile tinnitus) or a cricket's
/// chirps (high-frequency fluctuating tinnitus). Each pulse is a raised-cosine (sin²) bump; the gain at a
/// frame is a pure function of its absolute index, so it does not depend on block sizes.
package enum BeatPattern: Sendable, Equatable {
    /// One bump per beat, `rateHz` beats a second, lasting ``heartbeatShare`` of each period (the systolic
    /// part; silent in between).
    case heartbeat(rateHz: Double)
    /// `chirpRateHz` chirps a second, each `syllables` bumps at `syllableRateHz`, each bump half a syllable
    /// period long; silent after the last syllable until the next chirp.
    case chirps(chirpRateHz: Double, syllables: Int, syllableRateHz: Double)

    /// Share of a heartbeat's period its bump lasts.
    package static let heartbeatShare = 0.4

    /// The bump's gain (0 … 1) at `seconds` from the start.
    package func shape(atSeconds seconds: Double) -> Double {
        switch self {
        case .heartbeat(let rate):
            let phase = fraction(seconds * rate)
            return phase < Self.heartbeatShare ? sinSquared(phase / Self.heartbeatShare) : 0
        case .chirps(let chirpRate, let syllables, let syllableRate):
            let intoChirp = fraction(seconds * chirpRate) / chirpRate * syllableRate  // syllable periods
            guard intoChirp < Double(syllables) else { return 0 }
            let phase = fraction(intoChirp)
            return phase < 0.5 ? sinSquared(phase / 0.5) : 0
        }
    }

    /// Mean of the squared shape over a period: a stationary carrier times shape/√(this) keeps its RMS.
    /// A sin² bump's square averages 3/8 over the bump.
    package var meanSquare: Double {
        switch self {
        case .heartbeat: return Self.heartbeatShare * 3 / 8
        case .chirps(let chirpRate, let syllables, let syllableRate):
            return chirpRate * Double(syllables) / syllableRate * 0.5 * 3 / 8
        }
    }

    private func fraction(_ x: Double) -> Double { x - x.rounded(.down) }
    private func sinSquared(_ x: Double) -> Double { let s = sin(Double.pi * x); return s * s }
}

/// Any source times a ``BeatPattern`` normalised to keep a stationary carrier's RMS (shape/√mean square),
/// times `gain`. Frame n is at n / sampleRate s from the source's frame 0.
package final class BeatPatternSource: AudioSource {
    /// The source shaped; this modifier renders it and owns its position from now on.
    package let source: any AudioSource
    package let pattern: BeatPattern
    package var sampleRate: Double { source.sampleRate }
    package var channelCount: Int { source.channelCount }
    private let scale: Double
    private var position = 0

    /// - Parameter gain: a linear gain applied with the pattern (e.g. to bring a unit-peak tone to a level).
    package init(source: any AudioSource, pattern: BeatPattern, gain: Double = 1) {
        (self.source, self.pattern) = (source, pattern)
        scale = gain / pattern.meanSquare.squareRoot()
    }

    /// The exact gain applied to absolute frame `frame`.
    package func gain(atFrame frame: Int) -> Double { pattern.shape(atSeconds: Double(frame) / sampleRate) * scale }

    /// Prepares its source.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        source.render(into: block)
        for c in 0..<block.channelCount {
            let samples = block.channel(c)
            for i in samples.indices { samples[i] *= Float(gain(atFrame: position + i)) }
        }
        position += block.frameCount
    }
}

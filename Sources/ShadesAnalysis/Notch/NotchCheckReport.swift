import ShadesDSP
import ShadesPlatform

/// How a processed signal's spectrum compares with its reference's around a notch.
///
/// Transfer levels are 10·log10(S_yy/S_xx) (|H| from the power ratio, see `NotchCheckAccumulator`),
/// in 1/48-octave bands (ratio of the bands' summed powers, at least the nearest bin), relative to the
/// passband gain and floored at −300 dB.
///
/// The two signals are compared only where the reference has content above the output's own noise: a
/// band is compared when the reference's power in it, at the passband gain, is at least
/// `NotchCheckAccumulator.comparedMarginDB` (60 dB) above the output's noise there, the output's power
/// not coherent with the reference (Σ S_yy − |S_xy|²/S_xx per bin). Where the reference is empty (above a
/// lossy codec's low-pass, below a resampler's stop band) the output holds only its own noise, and a
/// ratio of two noises is no transfer function: such bands are left out of the gain, the ripple, the
/// depth and the search for a notch, and drawn as gaps.
public struct NotchCheckReport: Sendable, Encodable, Equatable {
    /// The notch checked: as given, or found from the transfer curve (see ``bandWasDetected``); nil when
    /// none was given and the curve has none.
    public let band: OctaveBand?
    /// True if no band was given and it was found from the curve: the deepest compared point between
    /// 20 Hz and 0.9 × Nyquist, at least `NotchCheckAccumulator.detectionDepthDB` below the passband,
    /// and the −3 dB crossings either side of it as edges, both seen in compared bands.
    public let bandWasDetected: Bool
    /// Mean level (dB) of the compared passband points of the curve (from 20 Hz to 0.9 × Nyquist, outside
    /// the notch and 1/12 octave around each edge): the output's gain. Every other level is relative to it.
    public let passbandGainDB: Double
    /// Level of the 1/48-octave band centred on the notch centre, in dB (negative: attenuation): all the
    /// output's power there, its noise included; nil when that band is not compared or there is no notch.
    public let depthDB: Double?
    /// The same band measured with the cross-spectral estimate |S_xy|/S_xx (20·log10, relative to the
    /// passband gain), for comparison: it reads below ``depthDB`` when the output carries noise
    /// uncorrelated with the reference, and is biased by a lag between the signals.
    package let crossSpectralDepthDB: Double?
    /// The highest level (least attenuation) of the reference's content through the notch, among compared
    /// 1/48-octave bands wholly inside the notch less its outer 1/24 octave at each edge, in dB: the
    /// output's power coherent with the reference over the reference's power (Σ|S_xy|²/S_xx / ΣS_xx), so
    /// the output's own noise (reported apart as ``inBandNoiseDB``) does not hide the filter's depth. An
    /// upper bound: averaging K segments leaves 1/K of the noise in the coherent power (at the 60 dB
    /// margin and 800 segments, 10 minutes at 44.1 kHz, it reads no lower than about −89 dB). Nil when no
    /// band of the notch is compared.
    public let worstInBandDB: Double?
    /// The highest level of the output's own noise (its power not coherent with the reference) over the
    /// reference's power, among the same bands, in dB: how far the output's noise floor fills the notch.
    public let inBandNoiseDB: Double?
    /// Largest |level| of compared 1/48-octave bands wholly between 20 Hz and 0.9 × Nyquist, outside the
    /// notch and 1/12 octave around each edge, in dB; nil when none is compared.
    public let passbandRippleDB: Double?
    /// The parts of the notch (less its outer 1/24 octave at each edge) whose bands were compared, in Hz.
    public let judgedInBandHz: [ClosedRange<Double>]
    /// The parts of the passband whose bands were compared, in Hz.
    package let comparedPassbandHz: [ClosedRange<Double>]
    /// Lag of the output behind the reference, in whole samples (positive: the output is later), from the
    /// peak of |cross-correlation| over the first ``NotchCheckAccumulator/lagSearchSeconds``.
    package let lagSamples: Int
    /// The lag refined by a parabola through the correlation peak, in samples.
    package let fineLagSamples: Double
    /// Transfer curve on a log grid, 24 points per octave from 20 Hz to 0.95 × Nyquist: level in dB of
    /// the 1/48-octave band centred on each frequency.
    package let curve: [Point]

    /// One point of the transfer curve.
    package struct Point: Sendable, Codable, Equatable {
        /// Hz.
        package let frequencyHz: Double
        /// dB relative to the passband gain.
        package let levelDB: Double
        /// Whether the band is compared (the reference has content there); a plot leaves the others out.
        package let compared: Bool
    }
}

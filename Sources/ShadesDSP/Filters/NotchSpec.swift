import ShadesPlatform

/// One notch: a band-stop centred geometrically at `centreHz`, `widthOctaves` wide (stop band
/// centre·2^(∓width/2)), optionally with the bands beside it boosted.
///
/// Okamoto et al. 2010 (PNAS 107:1207): one octave removed at the tinnitus frequency. Stein et al. 2016
/// (BMC Neurol. 16:38): ½ octave removed and the 3/8-octave bands on each side raised by 20 dB
/// (`NotchSpec(centreHz: f, widthOctaves: 0.5, edgeBoostDB: 20, edgeWidthOctaves: 0.375)`).
/// Wunderlich et al. 2015 compared 1, ½ and ¼ octave.
///
/// A spec is a plain value; `NotchDesign` checks it against a sample rate (`validate(sampleRate:)`).
/// Decoding fills missing keys with the defaults (1 octave, no boost, 3/8-octave boost bands).
public struct NotchSpec: Sendable, Equatable, Encodable {
    /// Geometric centre of the stop band, Hz.
    public var centreHz: Double
    /// Stop band width in octaves, (0, 3].
    public var widthOctaves: Double
    /// Gain of the bands beside the notch, dB, 0 … 30 (0: no boost; Stein 2016: 20).
    public var edgeBoostDB: Double
    /// Width of each boosted band, octaves, (0, 3] (Stein 2016: 3/8).
    public var edgeWidthOctaves: Double
    /// The ears the notch is for (bilateral tinnitus with a frequency per ear); a filter design takes the
    /// notches of one channel, so it does not read this.
    public var ears: Ears

    /// Widest notch (and widest boosted band), octaves.
    package static let maximumWidthOctaves = 3.0
    /// Allowed edge boost, dB.
    package static let edgeBoostRangeDB: ClosedRange<Double> = 0...30

    public init(centreHz: Double, widthOctaves: Double = 1, edgeBoostDB: Double = 0, edgeWidthOctaves: Double = 0.375,
                ears: Ears = .both) {
        self.centreHz = centreHz
        self.widthOctaves = widthOctaves
        self.edgeBoostDB = edgeBoostDB
        self.edgeWidthOctaves = edgeWidthOctaves
        self.ears = ears
    }

    private enum CodingKeys: String, CodingKey { case centreHz, widthOctaves, edgeBoostDB, edgeWidthOctaves, ears }

    /// Every key but `ears` when it is `both` (a notch for both ears reads as it always did).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(centreHz, forKey: .centreHz)
        try c.encode(widthOctaves, forKey: .widthOctaves)
        try c.encode(edgeBoostDB, forKey: .edgeBoostDB)
        try c.encode(edgeWidthOctaves, forKey: .edgeWidthOctaves)
        if ears != .both { try c.encode(ears, forKey: .ears) }
    }

    /// The stop band.
    package var band: OctaveBand { OctaveBand(uncheckedCentreHz: centreHz, widthOctaves: widthOctaves) }
    /// Lower edge of the stop band, centre·2^(−width/2), Hz.
    package var lowerEdgeHz: Double { band.lowerEdgeHz }
    /// Upper edge of the stop band, centre·2^(width/2), Hz.
    package var upperEdgeHz: Double { band.upperEdgeHz }
    /// True when the bands beside the notch are raised.
    package var isBoosted: Bool { edgeBoostDB > 0 }
    /// The boosted band below the notch, lowerEdge·2^(−edgeWidth) … lowerEdge, Hz; nil without a boost.
    package var lowerBoostBandHz: ClosedRange<Double>? {
        isBoosted ? lowerEdgeHz * pow(2, -edgeWidthOctaves)...lowerEdgeHz : nil
    }
    /// The boosted band above the notch, upperEdge … upperEdge·2^(edgeWidth), Hz; nil without a boost.
    package var upperBoostBandHz: ClosedRange<Double>? {
        isBoosted ? upperEdgeHz...upperEdgeHz * pow(2, edgeWidthOctaves) : nil
    }
    /// Where the specified depth holds: the stop band less its outer 1/24 octave at each edge, Hz; nil for
    /// notches of 1/12 octave or less, which have no such band.
    package var innerStopBandHz: ClosedRange<Double>? {
        let low = lowerEdgeHz * pow(2, NotchDesign.stopBandInsetOctaves)
        let high = upperEdgeHz * pow(2, -NotchDesign.stopBandInsetOctaves)
        return low < high ? low...high : nil
    }
    /// Everything the notch changes, Hz: from 1/12 octave below the lowest edge (of the boosted band, if
    /// any) to 1/12 octave above the highest. Outside it the response is flat (±0.05 dB).
    package var affectedRangeHz: ClosedRange<Double> {
        let octaves = widthOctaves / 2 + (isBoosted ? edgeWidthOctaves : 0) + NotchDesign.guardOctaves
        return centreHz * pow(2, -octaves)...centreHz * pow(2, octaves)
    }

    /// The centres allowed at `sampleRate` for this width and boost: ``affectedRangeHz`` must start at or
    /// above ``NotchDesign/lowestAffectedHz`` (20 Hz) and end below Nyquist (empty, 0 ..< 0, when nothing fits).
    /// (1 octave at 48 kHz: 30.0 … 16,018 Hz; ½ octave: 25.2 … 19,049 Hz; ½ octave with 3/8-octave
    /// boosts: 32.7 … 14,689 Hz; at 44.1 kHz: … 14,717, 17,501 and 13,495 Hz.)
    package func allowedCentresHz(sampleRate: Double) -> Range<Double> {
        let octaves = widthOctaves / 2 + (isBoosted ? edgeWidthOctaves : 0) + NotchDesign.guardOctaves
        let low = NotchDesign.lowestAffectedHz * pow(2, octaves), high = sampleRate / 2 * pow(2, -octaves)
        return low.isFinite && high.isFinite && low < high ? low..<high : 0..<0
    }

    /// Checks the spec for `sampleRate` (assumed valid).
    ///
    /// Throws ``ParameterID/notchCentre`` for a centre that is not finite and above 0 or outside
    /// ``allowedCentresHz(sampleRate:)``; ``ParameterID/notchWidth`` outside (0, 3] octaves;
    /// ``ParameterID/edgeBoost`` outside 0 … 30 dB; ``ParameterID/edgeWidth`` outside (0, 3] octaves
    /// (checked with or without a boost).
    package func validate(sampleRate: Double) throws(ShadesError) {
        try Parameter.notchCentre.check(centreHz)
        try Parameter.notchWidth.check(widthOctaves)
        try Parameter.edgeBoost.check(edgeBoostDB)
        try Parameter.edgeWidth.check(edgeWidthOctaves)
        let allowed = allowedCentresHz(sampleRate: sampleRate)
        guard !allowed.contains(centreHz) else { return }
        let affected = affectedRangeHz
        let what = isBoosted ? "the notch, its boosted bands and 1/12 octave beside them" : "the notch and 1/12 octave beside it"
        let rate = formatLimit(sampleRate)
        let rule = "\(what) (here \(formatLimit(affected.lowerBound)) … \(formatLimit(affected.upperBound)) Hz) must lie within "
            + "\(formatLimit(NotchDesign.lowestAffectedHz)) Hz … Nyquist (\(formatLimit(sampleRate / 2)) Hz)"
        throw Parameter.notchCentre.outOfRange(centreHz, allowed: allowed.isEmpty
            ? AllowedValues(note: "no centre fits this width at \(rate) Hz: \(rule)")
            : AllowedValues(range: .from(allowed.lowerBound, below: allowed.upperBound, unit: .hertz),
                            note: "for this width at \(rate) Hz: \(rule)"))
    }
}

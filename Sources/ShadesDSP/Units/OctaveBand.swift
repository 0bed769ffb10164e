import ShadesPlatform

/// A band `widthOctaves` wide centred geometrically on `centreHz`: edges centre·2^(∓width/2). The one
/// definition of band edges behind notches (``NotchSpec``), narrow-band noise and the notch check.
public struct OctaveBand: Sendable, Encodable, Equatable {
    /// Geometric centre, Hz (finite, above 0).
    public let centreHz: Double
    /// Width, octaves (above 0, at most `maximumWidthOctaves`).
    public let widthOctaves: Double

    /// Widest band, octaves: the ten octaves of hearing (20 Hz … 20 kHz). Notches and narrow-band noise
    /// allow less (``NotchSpec/maximumWidthOctaves``, ``NarrowBandNoiseSource/maximumWidthOctaves``).
    package static let maximumWidthOctaves = 10.0

    /// Throws `ParameterID.bandCentre` for a centre that is not finite and above 0 Hz,
    /// `ParameterID.bandWidth` for a width outside (0, 10] octaves.
    public init(centreHz: Double, widthOctaves: Double) throws(ShadesError) {
        try Parameter.bandCentre.check(centreHz)
        try Parameter.bandWidth.check(widthOctaves)
        self.init(uncheckedCentreHz: centreHz, widthOctaves: widthOctaves)
    }

    /// A band whose values the caller has checked against its own limits.
    init(uncheckedCentreHz centreHz: Double, widthOctaves: Double) {
        (self.centreHz, self.widthOctaves) = (centreHz, widthOctaves)
    }

    /// Lower edge, centre·2^(−width/2), Hz.
    package var lowerEdgeHz: Double { centreHz * pow(2, -widthOctaves / 2) }
    /// Upper edge, centre·2^(width/2), Hz.
    package var upperEdgeHz: Double { centreHz * pow(2, widthOctaves / 2) }
}

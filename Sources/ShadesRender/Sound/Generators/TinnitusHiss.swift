import ShadesDSP

/// Steady-noise tinnitus (hissing, rushing; the second quality cluster, PMC8060060): band noise centred on
/// `centreHz`, `widthOctaves` wide, as ``NarrowBandNoise`` makes it (a stream, or a loop synthesised whole).
package struct TinnitusHiss: GeneratorKind {
    /// Centre of the band, Hz.
    package var centreHz: Double
    /// Width of the band, octaves.
    package var widthOctaves: Double

    package static let names = ["tinnitus-hiss"]
    package static let help = "tinnitus-hiss: steady hissing tinnitus, band noise centred at --frequency, --width octaves wide"
    package static let example: String? = "shades render tinnitus-hiss --frequency 6kHz --width 1 --duration 30s -o hiss.wav"
    package static var defaults: TinnitusHiss { TinnitusHiss(centreHz: 1000, widthOctaves: Parameter.width.defaultValue!) }
    package static var fields: [ParameterField<TinnitusHiss>] {
        [.number(\.centreHz, .frequency, key: "frequency", form: .hertz, help: "the hiss's centre", requiredAs: "a centre frequency"),
         .number(\.widthOctaves, .width, key: "width", help: "the hiss's width in octaves (default \(formatNumber(Parameter.width.defaultValue!)))")]
    }

    package var summary: String { "tinnitus-hiss frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct" }
    package var shortest: (seconds: Double, holding: String)? { nil }
    /// Read at the band's centre.
    package var hearingReference: HearingReference { .frequency(hertz: centreHz, what: "the band's centre") }

    /// The band noise it is.
    var band: NarrowBandNoise { NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves) }

    package func validate(in request: RenderRequest) throws(ShadesError) { try band.validate(in: request) }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals { try band.signals(&context) }
}

extension Generator {
    /// Steady hissing tinnitus: band noise at `centreHz`, `widthOctaves` wide.
    public static func tinnitusHiss(centreHz: Double, widthOctaves: Double) -> Generator {
        Generator(TinnitusHiss(centreHz: centreHz, widthOctaves: widthOctaves))
    }
}

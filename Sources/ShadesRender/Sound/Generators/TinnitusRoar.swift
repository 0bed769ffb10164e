import ShadesDSP

/// Low-frequency fluctuating tinnitus (roaring, rumbling; the fourth quality cluster, PMC8060060): band
/// noise centred on `centreHz` (``NarrowBandNoise``) whose amplitude rises and falls `fluctuationHz` times a
/// second by `depth` (sinusoidal, ``AmplitudeModulatedSource`` keeping the RMS). In a loop the fluctuation
/// moves to whole cycles.
package struct TinnitusRoar: GeneratorKind {
    /// Centre of the band, Hz.
    package var centreHz: Double
    /// Width of the band, octaves.
    package var widthOctaves: Double
    /// Fluctuations per second, Hz.
    package var fluctuationHz: Double
    /// Depth of the fluctuation, 0 … 1 (1: down to silence).
    package var depth: Double

    package static let names = ["tinnitus-roar"]
    package static let help = "tinnitus-roar: roaring tinnitus, band noise at --frequency (--width) fluctuating at --fluctuation"
    package static let example: String? = "shades render tinnitus-roar --frequency 150Hz --width 2 --fluctuation 1 --fluctuation-depth 0.5 --duration 30s -o roar.wav"
    package static var defaults: TinnitusRoar {
        TinnitusRoar(centreHz: 1000, widthOctaves: Parameter.width.defaultValue!, fluctuationHz: Parameter.fluctuation.defaultValue!,
                     depth: Parameter.fluctuationDepth.defaultValue!)
    }
    package static var fields: [ParameterField<TinnitusRoar>] {
        [.number(\.centreHz, .frequency, key: "frequency", form: .hertz, help: "the roar's centre", requiredAs: "a centre frequency"),
         .number(\.widthOctaves, .width, key: "width", help: "the roar's width in octaves (default \(formatNumber(Parameter.width.defaultValue!)))"),
         .number(\.fluctuationHz, .fluctuation, key: "fluctuation", form: .hertz,
                 help: "rises and falls per second, \(Parameter.fluctuation.range!) (default \(formatNumber(Parameter.fluctuation.defaultValue!)) Hz)"),
         .number(\.depth, .fluctuationDepth, key: "fluctuationDepth", flag: "fluctuation-depth",
                 help: "depth of the fluctuation, \(Parameter.fluctuationDepth.range!) (default \(formatNumber(Parameter.fluctuationDepth.defaultValue!)))")]
    }

    package var summary: String {
        "tinnitus-roar frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct fluctuation=\(formatNumber(fluctuationHz))Hz depth=\(formatNumber(depth))"
    }
    package var shortest: (seconds: Double, holding: String)? { (1 / fluctuationHz, "one fluctuation") }
    /// Read at the band's centre.
    package var hearingReference: HearingReference { .frequency(hertz: centreHz, what: "the band's centre") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves).validate(in: request)
        try Parameter.fluctuation.check(fluctuationHz)
        try Parameter.fluctuationDepth.check(depth)
        if request.loop {
            let rate = request.loopRate(fluctuationHz)
            try Parameter.fluctuation.check(rate, within: Parameter.fluctuation.range!, note: "with whole cycles in the loop (it becomes \(formatNumber(rate)) Hz)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let (rate, depth) = (context.loopAdjusted("fluctuation", fluctuationHz), self.depth)
        return try NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves).signals(&context)
            .wrapped { try! AmplitudeModulatedSource(carrier: $0, rateHz: rate, depth: depth) }
    }
}

extension Generator {
    /// Roaring tinnitus: band noise at `centreHz`, `widthOctaves` wide, fluctuating `fluctuationHz` times a second.
    public static func tinnitusRoar(centreHz: Double, widthOctaves: Double, fluctuationHz: Double, depth: Double) -> Generator {
        Generator(TinnitusRoar(centreHz: centreHz, widthOctaves: widthOctaves, fluctuationHz: fluctuationHz, depth: depth))
    }
}

extension Parameter {
    /// Fluctuations per second of roaring tinnitus, Hz: 0.5 … 8, default 1.
    package static let fluctuation = Parameter(.fluctuation, unit: .hertz, range: ParameterRange(0.5...8, unit: .hertz), default: 1)
    /// Depth of the fluctuation, 0 … 1 (as an AM depth), default 0.5.
    package static let fluctuationDepth = Parameter(.fluctuationDepth, range: ParameterRange(0...1), default: 0.5)
}

extension ParameterID {
    package static let fluctuation = ParameterID("fluctuation", name: "fluctuation rate")
    package static let fluctuationDepth = ParameterID("fluctuationDepth", name: "fluctuation depth")
}

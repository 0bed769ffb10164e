import ShadesDSP

/// Pulsatile tinnitus (the third quality cluster, PMC8060060): a whoosh in time with the heart, band noise
/// centred on `centreHz` (``NarrowBandNoise``) shaped by one raised-cosine bump per beat at `heartRateBPM`
/// (``BeatPattern/heartbeat(rateHz:)``: 40 % of each period, silent between), normalised to keep the noise's
/// RMS in expectation; a file is measured. In a loop the rate moves to whole beats.
package struct TinnitusPulse: GeneratorKind {
    /// Centre of the band, Hz.
    package var centreHz: Double
    /// Width of the band, octaves.
    package var widthOctaves: Double
    /// Beats per minute.
    package var heartRateBPM: Double

    package static let names = ["tinnitus-pulse"]
    package static let help = "tinnitus-pulse: pulsatile tinnitus, band noise at --frequency (--width) pulsing at --heart-rate"
    package static let example: String? = "shades render tinnitus-pulse --frequency 500Hz --width 2 --heart-rate 72 --duration 30s -o pulsatile.wav"
    package static var defaults: TinnitusPulse {
        TinnitusPulse(centreHz: 1000, widthOctaves: Parameter.width.defaultValue!, heartRateBPM: Parameter.heartRate.defaultValue!)
    }
    package static var fields: [ParameterField<TinnitusPulse>] {
        [.number(\.centreHz, .frequency, key: "frequency", form: .hertz, help: "the whoosh's centre", requiredAs: "a centre frequency"),
         .number(\.widthOctaves, .width, key: "width", help: "the whoosh's width in octaves (default \(formatNumber(Parameter.width.defaultValue!)))"),
         .number(\.heartRateBPM, .heartRate, key: "heartRateBPM", flag: "heart-rate",
                 help: "beats per minute, \(Parameter.heartRate.range!) (default \(formatNumber(Parameter.heartRate.defaultValue!)))")]
    }

    package var summary: String {
        "tinnitus-pulse frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct heart-rate=\(formatNumber(heartRateBPM))BPM"
    }
    package var shortest: (seconds: Double, holding: String)? { (60 / heartRateBPM, "one heartbeat") }
    /// Read at the band's centre.
    package var hearingReference: HearingReference { .frequency(hertz: centreHz, what: "the band's centre") }
    /// Lower than other noise: the beats raise the peak 8 dB over the RMS; at −20 dBFS a band noise would clip.
    package static var defaultLevelDBFS: Double { -26 }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves).validate(in: request)
        try Parameter.heartRate.check(heartRateBPM)
        if request.loop {
            let rate = request.loopRate(heartRateBPM / 60) * 60
            try Parameter.heartRate.check(rate, within: Parameter.heartRate.range!, note: "with whole beats in the loop (it becomes \(formatNumber(rate)) BPM)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let pattern = BeatPattern.heartbeat(rateHz: context.loopAdjusted("heart rate", heartRateBPM / 60, scale: 60, unit: "BPM") / 60)
        return try NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves).signals(&context)
            .wrapped { BeatPatternSource(source: $0, pattern: pattern) }
    }
}

extension Generator {
    /// Pulsatile tinnitus: band noise at `centreHz`, `widthOctaves` wide, pulsing at `heartRateBPM`.
    public static func tinnitusPulse(centreHz: Double, widthOctaves: Double, heartRateBPM: Double) -> Generator {
        Generator(TinnitusPulse(centreHz: centreHz, widthOctaves: widthOctaves, heartRateBPM: heartRateBPM))
    }
}

extension Parameter {
    /// Heart rate of pulsatile tinnitus, beats per minute: 40 … 180, default 72.
    package static let heartRate = Parameter(.heartRate, unit: .beatsPerMinute, range: ParameterRange(40...180, unit: .beatsPerMinute), default: 72)
}

extension ParameterID {
    package static let heartRate = ParameterID("heartRate", name: "heart rate")
}

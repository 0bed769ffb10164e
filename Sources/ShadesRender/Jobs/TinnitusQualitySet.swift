import ShadesDSP

extension StimulusSets {
    /// The five clusters of tinnitus quality (PMC8060060): tonal, steady noise, pulsatile, low-frequency
    /// fluctuating (roaring) and high-frequency fluctuating (cricket-like), in that order.
    package enum TinnitusQuality: String, CaseIterable, Sendable {
        case tonal
        case steadyNoise = "steady-noise"
        case pulsatile
        case lowFrequencyFluctuating = "low-frequency-fluctuating"
        case highFrequencyFluctuating = "high-frequency-fluctuating"

        /// The cluster's sound; the tonal, steady-noise and high-frequency clusters at `frequencyHz` (the
        /// patient's tinnitus frequency), the pulsatile and roaring ones in their own low bands (500 Hz and
        /// 150 Hz, two octaves wide), since those qualities are low-pitched whatever the patient's match.
        package func sound(atHz frequencyHz: Double) -> Generator {
            switch self {
            case .tonal: return .tinnitusTone(frequencyHz: frequencyHz)
            case .steadyNoise: return .tinnitusHiss(centreHz: frequencyHz, widthOctaves: 1)
            case .pulsatile: return .tinnitusPulse(centreHz: 500, widthOctaves: 2, heartRateBPM: Parameter.heartRate.defaultValue!)
            case .lowFrequencyFluctuating:
                return .tinnitusRoar(centreHz: 150, widthOctaves: 2, fluctuationHz: Parameter.fluctuation.defaultValue!,
                                     depth: Parameter.fluctuationDepth.defaultValue!)
            case .highFrequencyFluctuating:
                return .tinnitusCricket(frequencyHz: frequencyHz, chirpRateHz: Parameter.chirpRate.defaultValue!,
                                        syllables: Int(Parameter.syllables.defaultValue!), syllableRateHz: Parameter.syllableRate.defaultValue!)
            }
        }
    }

    /// The tinnitus frequency the set uses when the patient's is not given, Hz.
    package static let defaultTinnitusFrequencyHz = 6_000.0
    /// The set's level when none is asked, dBFS: the pulsatile sound's default (its beats raise the peak), so
    /// every file fits.
    package static let tinnitusQualityLevelDBFS = -26.0

    /// One file per quality cluster for the patient to choose the one most like their tinnitus: each
    /// `durationSeconds` long with 10 ms raised-cosine ramps, every one at the same RMS level `levelDBFS`
    /// (the level policy's, over the whole sound, pauses included).
    package static func tinnitusQuality(frequencyHz: Double, durationSeconds: Double, layout: ChannelLayout, levelDBFS: Double,
                                        sampleRate: Double, seed: UInt64) throws(ShadesError) -> [Item] {
        try Parameter.frequency.check(frequencyHz)
        return try TinnitusQuality.allCases.map { (quality: TinnitusQuality) throws(ShadesError) -> Item in
            let sound = quality.sound(atHz: frequencyHz)
            let request = RenderRequest(sound: sound, durationSeconds: durationSeconds, sampleRate: sampleRate, layout: layout,
                                        levelDBFS: levelDBFS, seed: seed, fades: Fades(inSeconds: 0.01, outSeconds: 0.01))
            try request.validate()
            let band = sound.as(TinnitusHiss.self)?.widthOctaves ?? sound.as(TinnitusPulse.self)?.widthOctaves ?? sound.as(TinnitusRoar.self)?.widthOctaves
            let centre = sound.as(TinnitusPulse.self)?.centreHz ?? sound.as(TinnitusRoar.self)?.centreHz ?? frequencyHz
            var entry = StimulusFile(file: "\(quality.rawValue)-\(hertzName(centre))", kind: sound.name, frequency: centre, widthOctaves: band,
                                     ear: earName(layout), duration: Double(request.frameCount) / sampleRate, level: levelDBFS)
            (entry.quality, entry.sound) = (quality.rawValue, sound.summary)
            return Item(request: request, entry: entry)
        }
    }
}

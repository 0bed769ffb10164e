import ShadesPlatform
import ShadesDSP

/// Noise made of rectangular frequency bins, each at its own level: the random binned spectra of reverse
/// correlation (Hoyland et al. 2023, IEEE Open J Eng Med Biol 4: bins between 100 Hz and 13 kHz, each "filled"
/// at 0 dB or "unfilled" at −100 dB, random phase, one inverse FFT over the whole stimulus). The bins split
/// `lowHz … highHz` evenly on a log-frequency or a mel scale (m = 2595·log10(1 + f/700), the paper's). Synthesised
/// whole by FFT (``LoopNoise``, FFTW single precision): every FFT bin inside a bin gets the bin's level and a
/// uniformly random phase, nothing outside the range; so it also loops seamlessly. One signal per ear.
package struct BinnedNoise: GeneratorKind {
    /// How the range is split: equal steps of log frequency, or of mels.
    package enum Scale: String, CaseIterable, Sendable, Encodable { case log, mel }

    /// The lowest bin's lower edge and the highest bin's upper edge, Hz.
    package var lowHz: Double
    package var highHz: Double
    package var scale: Scale
    /// The level of each bin, dB re the others (the file's level is the request's); nil: one flat band.
    package var levelsDB: [Double]?

    /// Allowed bin levels, dB (the paper's unfilled bins are at −100 dB).
    package static let allowedLevelDB: ClosedRange<Double> = -120...0
    /// The most bins.
    package static let maximumBins = 512

    package static let names = ["binned-noise"]
    package static let help = "binned-noise: noise in bins from --bin-low to --bin-high on --bin-scale log or mel, each at its --bin-levels"
    package static let example: String? = "shades render binned-noise --bin-levels 0,-100,0,0,-100,-100,0,-100 --duration 500ms -o stimulus.wav"
    package static var defaults: BinnedNoise { BinnedNoise(lowHz: 100, highHz: 13_000, scale: .log, levelsDB: nil) }
    package static var fields: [ParameterField<BinnedNoise>] {
        [.number(\.lowHz, .binLow, key: "lowHz", flag: "bin-low", form: .hertz, help: "the lowest bin's lower edge (default 100 Hz)"),
         .number(\.highHz, .binHigh, key: "highHz", flag: "bin-high", form: .hertz, help: "the highest bin's upper edge (default 13 kHz)"),
         .choice(\.scale, .binScale, key: "binScale", flag: "bin-scale", help: "log or mel: equal steps of log frequency or of mels (default log)",
                 omitted: .log),
         .gains(\.levelsDB, .binLevels, key: "binLevelsDB", flag: "bin-levels",
                help: "the level of each bin in dB, -120 … 0, low to high (their count is the number of bins; default one flat band)")]
    }

    package init(lowHz: Double, highHz: Double, scale: Scale, levelsDB: [Double]?) {
        (self.lowHz, self.highHz, self.scale, self.levelsDB) = (lowHz, highHz, scale, levelsDB)
    }

    package var summary: String {
        "binned-noise low=\(formatNumber(lowHz))Hz high=\(formatNumber(highHz))Hz scale=\(scale.rawValue)"
            + (levelsDB.map { " levels=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
    }
    package var shortest: (seconds: Double, holding: String)? { nil }
    package var shapesLoopExactly: Bool { true }

    /// The edges of `count` bins from `lowHz` to `highHz` on `scale`, Hz (count + 1 of them).
    package static func edgesHz(lowHz: Double, highHz: Double, count: Int, scale: Scale) -> [Double] {
        switch scale {
        case .log:
            return (0...count).map { lowHz * pow(highHz / lowHz, Double($0) / Double(count)) }
        case .mel:
            func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
            let (low, high) = (mel(lowHz), mel(highHz))
            return (0...count).map { 700 * (pow(10, (low + (high - low) * Double($0) / Double(count)) / 2595) - 1) }
        }
    }

    /// This noise's bin edges, Hz.
    package var edgesHz: [Double] { Self.edgesHz(lowHz: lowHz, highHz: highHz, count: levelsDB?.count ?? 1, scale: scale) }

    /// Checks the range (below Nyquist), the levels, and that every bin holds at least one FFT bin of the whole
    /// length (at least rate/frames Hz wide).
    package func validate(in request: RenderRequest) throws(ShadesError) {
        let nyquist = request.sampleRate / 2
        try Parameter.binLow.check(lowHz)
        try Parameter.binHigh.check(highHz, within: .above(lowHz, below: nyquist, unit: .hertz), note: "(above the lowest edge, below Nyquist)")
        let levels = levelsDB ?? [0]
        guard (1...Self.maximumBins).contains(levels.count) else {
            throw ShadesError(parameter: .binLevels, value: "\(levels.count) levels", allowed: "1 … \(Self.maximumBins) levels, one per bin")
        }
        for level in levels { try Parameter.binLevels.check(level) }
        let frames = request.frameCount
        guard frames <= LoopNoise.largestSynthesisFrames else {
            throw ShadesError(parameter: .duration, value: "\(formatNumber(request.durationSeconds)) s",
                              allowed: "binned noise is synthesised whole: at most \(LoopNoise.largestSynthesisFrames) frames "
                                  + "(\(formatNumber(Double(LoopNoise.largestSynthesisFrames) / request.sampleRate, roundedTo: 1)) s at this rate)")
        }
        let edges = edgesHz
        let resolution = request.sampleRate / Double(max(frames, 1))
        if let narrowest = zip(edges, edges.dropFirst()).map({ $1 - $0 }).min(), narrowest < resolution {
            throw ShadesError(parameter: .binLevels, value: "\(levels.count) bins",
                              problem: "makes a bin \(formatNumber(narrowest, roundedTo: 2)) Hz wide, narrower than 1/duration (\(formatNumber(resolution, roundedTo: 2)) Hz)",
                              allowed: "fewer bins, a wider range or a longer sound")
        }
    }

    /// The amplitude of every frequency: its bin's level, 0 outside the range.
    private var gains: @Sendable (Double) -> Double {
        let edges = edgesHz
        let amplitudes = (levelsDB ?? [0]).map { Decibels.amplitude($0) }
        return { f in
            guard f >= edges[0], f < edges[edges.count - 1] else { return 0 }
            // The last edge below or at f (binary search): bin i covers edges[i] ..< edges[i + 1].
            var (low, high) = (0, edges.count - 1)
            while high - low > 1 {
                let middle = (low + high) / 2
                if edges[middle] <= f { low = middle } else { high = middle }
            }
            return amplitudes[min(low, amplitudes.count - 1)]
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let (rate, seed, frames) = (context.sampleRate, context.seed, context.frames)
        let (notches, shape) = context.takeFilters()
        let gains = self.gains
        let buffers = SoundGraph.synthesise(context.layout.signalCount, frames: frames) { s, samples in
            LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                             shaping: { f in gains(f) * (notches?[s].idealGain(atFrequency: f) ?? 1) * (shape?.idealGain(atFrequency: f) ?? 1) },
                             into: samples)
        }
        return GeneratorSignals(layout: context.layout, synthesised: buffers, sampleRate: rate)
    }
}

extension ParameterID {
    /// Binned noise (reverse-correlation stimuli): its range, scale and bin levels.
    package static let binLow = ParameterID("binLow", name: "lowest bin edge")
    package static let binHigh = ParameterID("binHigh", name: "highest bin edge")
    package static let binScale = ParameterID("binScale", name: "bin scale")
    package static let binLevels = ParameterID("binLevels", name: "bin levels")
}

extension Parameter {
    package static let binLow = Parameter(.binLow, unit: .hertz, range: ParameterRange(20...96_000, unit: .hertz), default: 100)
    package static let binHigh = Parameter(.binHigh, unit: .hertz, range: .above(0, unit: .hertz), default: 13_000)
    package static let binScale = Parameter(.binScale, note: BinnedNoise.Scale.allCases.map(\.rawValue).joined(separator: ", "))
    package static let binLevels = Parameter(.binLevels, unit: .decibels, range: ParameterRange(BinnedNoise.allowedLevelDB, unit: .decibels),
                                             note: "one level per bin")
}

extension Generator {
    /// Noise in rectangular bins from `lowHz` to `highHz` on `scale`, each at its level in `levelsDB` (reverse correlation).
    package static func binnedNoise(lowHz: Double, highHz: Double, scale: BinnedNoise.Scale, levelsDB: [Double]) -> Generator {
        Generator(BinnedNoise(lowHz: lowHz, highHz: highHz, scale: scale, levelsDB: levelsDB))
    }
}

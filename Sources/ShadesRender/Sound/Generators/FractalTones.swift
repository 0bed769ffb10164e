import ShadesDSP

/// Fractal tones (``FractalToneSource``): a chime-like melody whose pitch and timing follow 1/f sequences
/// over a scale (after Widex Zen: US patent 6,816,599; Sweetow & Sabes 2010). One signal (diotic in stereo),
/// at the level in expectation; a loop holds whole grid steps and its last note ends at the loop's end.
extension FractalTones: GeneratorKind {
    package static let names = ["fractal"]
    package static let help = "fractal: fractal tones, a chime melody on --scale from --low to --high at --tempo"
    package static let example: String? = "shades render fractal --scale pentatonic --low 523.25Hz --high 2093Hz --tempo 80 --seed 4 --duration 10m -o zen.wav"
    package static var defaults: FractalTones { FractalTones() }
    package static var fields: [ParameterField<FractalTones>] {
        [.choice(\.scale, .scale, key: "scale", help: "the scale, \(Scale.allCases.map(\.rawValue).joined(separator: ", ")) (default pentatonic)"),
         .number(\.lowHz, .lowPitch, key: "low", form: .hertz, help: "the lowest pitch, the scale's tonic (default C5, 523.25 Hz)"),
         .number(\.highHz, .highPitch, key: "high", form: .hertz, help: "the highest pitch (default C7, 2093 Hz)"),
         .number(\.tempoBPM, .tempo, key: "tempoBPM", flag: "tempo",
                 help: "grid steps per minute, \(ParameterRange(allowedTempoBPM)) (default \(formatNumber(Parameter.tempo.defaultValue!))); each note lasts 1 … 4 steps")]
    }

    package var summary: String {
        "fractal scale=\(scale.rawValue) low=\(formatNumber(lowHz))Hz high=\(formatNumber(highHz))Hz tempo=\(formatNumber(tempoBPM))"
    }
    package var shortest: (seconds: Double, holding: String)? { (60 / tempoBPM, "one note (a grid step)") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validate(sampleRate: request.sampleRate)
        if request.loop {
            let tempo = request.loopRate(tempoBPM / 60) * 60
            try Parameter.tempo.check(tempo, within: ParameterRange(Self.allowedTempoBPM, unit: .beatsPerMinute),
                                      note: "with whole grid steps in the loop (it becomes \(formatNumber(tempo)) BPM)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        var tones = self
        tones.tempoBPM = context.loopAdjusted("tempo", tempoBPM / 60, scale: 60, unit: "BPM")
        let loopFrames = context.request.loop ? context.frames : nil
        return context.singleSignal { [tones] rate, level, seed in
            try! FractalToneSource(tones: tones, sampleRate: rate, levelDBFS: level, seed: seed, loopFrames: loopFrames)
        }
    }
}

extension Generator {
    /// Fractal tones over `scale` from `lowHz` (the tonic) up to `highHz`, on a grid of 60/`tempoBPM` s.
    /// Defaults: pentatonic, C5 … C7, 80 steps a minute.
    public static func fractalTones(scale: MusicalScale = .pentatonic, lowHz: Double? = nil, highHz: Double? = nil,
                                    tempoBPM: Double? = nil) -> Generator {
        let defaults = FractalTones()
        return Generator(FractalTones(scale: scale, lowHz: lowHz ?? defaults.lowHz, highHz: highHz ?? defaults.highHz,
                                      tempoBPM: tempoBPM ?? defaults.tempoBPM))
    }

    /// Fractal tones of `tones`.
    package static func fractalTones(_ tones: FractalTones) -> Generator { Generator(tones) }

    /// The parameters of fractal tones, when the generator is one.
    package var fractal: FractalTones? { `as`(FractalTones.self) }
}

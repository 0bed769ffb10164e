import ShadesDSP

/// One kind of generator, described once: its source names, its parameters (each with its JSON key, its
/// command-line flag, unit, range and default: ``ParameterField``), how it is checked at a request's rate,
/// length and loop mode, the signals it makes and its comment-tag summary. The JSON reader and writer, the
/// command line's options and help, validation and the graph builder all read it, so adding a generator is
/// one file: a type conforming to this protocol, listed in ``Generator/kinds``.
package protocol GeneratorKind: Sendable, Equatable {
    /// Source names in the JSON form and on the command line, in the order help lists them; the first is
    /// the one written unless ``name`` says otherwise.
    static var names: [String] { get }
    /// Other names read but never listed or written ("gray").
    static var aliases: [String] { get }
    /// One line for `render --help`: what the names make and the flags that shape it.
    static var help: String { get }
    /// An example command line, for `render --help`.
    static var example: String? { get }
    /// Its parameters, in the order they are read, written and listed.
    static var fields: [ParameterField<Self>] { get }
    /// The value the fields are read into: every parameter at its default, a required one at a placeholder.
    static var defaults: Self { get }
    /// The RMS level a sound of it is made at when none is asked, dBFS.
    static var defaultLevelDBFS: Double { get }

    /// Reads it as source `name` (one of ``names``) from `values`. By default each field in turn, over
    /// ``defaults``; a missing required field is refused.
    static func read(_ values: some ParameterValues, name: String) throws(ShadesError) -> Self

    /// The source name written for it.
    var name: String { get }
    /// Its parameters in comment tags and messages, e.g. "tone frequency=6000Hz".
    var summary: String { get }
    /// The shortest length that carries it and what that length holds; nil when one sample does (noise). A
    /// shorter sound would be silent or a fragment whose level means nothing.
    var shortest: (seconds: Double, holding: String)? { get }
    /// The frequency a level relative to hearing refers to (dB SL, dB HL, the calibration's dB SPL), or
    /// broadband: none by default (noise, music), so dB SL and dB HL of it are refused.
    var hearingReference: HearingReference { get }
    /// True when a loop of it is synthesised over its whole length with its spectrum shaped exactly (noise
    /// colours): notches and a spectral shape then keep the seam.
    var shapesLoopExactly: Bool { get }
    /// Checks its values at `request`'s rate, length, loop mode and layout, and refuses the modifiers it
    /// cannot carry; each parameter's own range is checked where it is read or here.
    func validate(in request: RenderRequest) throws(ShadesError)
    /// Its signals for the request in `context` (validated).
    func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals
    /// The generator with a spectral shape (an audiogram's) taken into its own parameters, nil when the
    /// shape is applied as a filter instead (the default).
    func shaped(by shape: SpectralShape) -> Generator?
    /// Its sham twin, declared beside it (``Sound/shamTwin()``): the same sound with its therapeutic
    /// frequency or modulation moved out of the therapeutic range, the published sham where one exists. Nil
    /// (the default) when it is not a therapy sound: a sham keeps it as it is, and a sound of nothing else
    /// has no sham.
    func sham() -> Self?
}

extension GeneratorKind {
    package static var aliases: [String] { [] }
    package static var example: String? { nil }
    package static var defaultLevelDBFS: Double { Parameter.level.defaultValue! }
    package var name: String { Self.names[0] }
    package var shapesLoopExactly: Bool { false }
    package func shaped(by shape: SpectralShape) -> Generator? { nil }
    package func sham() -> Self? { nil }

    package static func read(_ values: some ParameterValues, name: String) throws(ShadesError) -> Self {
        var value = defaults
        for field in fields where field.applies(to: name) {
            try field.read(&value, values, name)
        }
        return value
    }

    /// The fields that apply to source `name`.
    package static func fields(for name: String) -> [ParameterField<Self>] { fields.filter { $0.applies(to: name) } }

    /// True when `other` is the same kind with the same values.
    func isEqual(to other: any GeneratorKind) -> Bool { (other as? Self) == self }
}

/// What a generator is made for: the request (validated), the notch designs and spectral shape its signals
/// get (a generator synthesised whole applies them in its own spectrum and clears them here), and notes
/// for the user (a loop's adjusted rates).
package struct SignalContext {
    package let request: RenderRequest
    /// One notch design per signal, nil when the sound has no notch.
    package var notches: [NotchDesign]?
    /// The spectral shape's filter, nil when the sound has none.
    package var shape: NotchDesign?
    package var notes: [String] = []

    /// Sample rate, Hz.
    package var sampleRate: Double { request.sampleRate }
    /// Frames of the request.
    package var frames: Int { request.frameCount }
    /// The RMS level the generator's own level is set to, dBFS.
    package var levelDBFS: Double { request.levelDBFS }
    /// The seed used.
    package var seed: UInt64 { request.resolvedSeed }
    /// The layout asked (the sound's own, else the request's).
    package var layout: ChannelLayout { request.resolvedLayout }
    /// One signal for the whole sound: diotic in stereo, else the layout asked (tones, patterns).
    package var singleSignalLayout: ChannelLayout { layout == .stereo ? .diotic : layout }

    /// One signal (``singleSignalLayout``) from `make`, given the rate (Hz), the level (dBFS) and the seed: a
    /// generator that sets its own level as it plays (a file is measured).
    package func singleSignal(_ make: @escaping @Sendable (_ sampleRate: Double, _ levelDBFS: Double, _ seed: UInt64) -> any AudioSource)
        -> GeneratorSignals {
        let (rate, level, seed) = (sampleRate, levelDBFS, self.seed)
        return GeneratorSignals(layout: singleSignalLayout) { _ in make(rate, level, seed) }
    }

    /// `asked` (a rate in Hz) with whole cycles in a loop, and a note when it moved; `scale` and `unit` show
    /// it in another unit (a tempo: 60, "BPM"). The rate, times `scale`.
    package mutating func loopAdjusted(_ name: String, _ asked: Double, scale: Double = 1, unit: String = "Hz") -> Double {
        let applied = request.loopRate(asked)
        if applied != asked {
            notes.append("loop: \(name) adjusted from \(formatNumber(asked * scale)) \(unit) to \(applied * scale) \(unit)"
                         + " (\(formatSigned((applied - asked) * scale)) \(unit)) for whole cycles")
        }
        return applied * scale
    }

    /// The notches and shape, for a generator that applies them in a spectrum synthesised whole (the band
    /// removed exactly, the rest untouched), and cleared here so no filter applies them again.
    package mutating func takeFilters() -> (notches: [NotchDesign]?, shape: NotchDesign?) {
        defer { (notches, shape) = (nil, nil) }
        return (notches, shape)
    }
}

/// The signals a generator makes, before notches, modulation and envelopes.
package struct GeneratorSignals {
    /// How its signals sit in the output channels (a tone in stereo: diotic, one signal).
    package var layout: ChannelLayout
    /// A fresh mono source of signal `s`.
    package var make: @Sendable (_ signal: Int) -> any AudioSource
    /// Σx² and peak of each signal when known without rendering (plain tones, loops), else nil.
    package var measured: [SignalMeasurement]? = nil
    /// For a stream at the asked level in expectation: the relative standard deviation of its measured
    /// power over the file (nil: measured instead).
    package var powerScatter: Double? = nil
    /// For a coloured-noise stream: its power over the file, forecast before rendering (nil: none).
    package var powerForecast: PowerForecast? = nil
    /// The tone frequency rendered (a loop adjusts it), Hz.
    package var renderedFrequencyHz: Double? = nil
    /// Switching applied as pulses after the sustained sound (a tone switched at its own rate).
    package var gate: Pulses? = nil

    package init(layout: ChannelLayout, make: @escaping @Sendable (_ signal: Int) -> any AudioSource) {
        (self.layout, self.make) = (layout, make)
    }

    /// Signals synthesised whole in `buffers` (one mono buffer per signal), played back and measured.
    package init(layout: ChannelLayout, synthesised buffers: [AudioBuffer], sampleRate: Double) {
        self.layout = layout
        (make, measured) = SoundGraph.playBack(buffers, sampleRate: sampleRate)
    }

    /// White noise shaped by `magnitude` (linear amplitude over frequency in Hz), synthesised whole by FFT
    /// (``LoopNoise``: exact spectrum, seamless as a loop, a loop or not), one signal per signal of the
    /// layout, with the notches and the shape of `context` taken into its spectrum; played back and
    /// measured. Checked by ``RenderRequest/validateWholeSynthesis(_:)``.
    package init(whiteNoiseShapedBy magnitude: @escaping @Sendable (_ frequencyHz: Double) -> Double, _ context: inout SignalContext) {
        let (rate, seed) = (context.sampleRate, context.seed)
        let (notches, shape) = context.takeFilters()
        let signals = SoundGraph.synthesise(context.layout.signalCount, frames: context.frames) { s, samples in
            LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                             shaping: { f in
                                 magnitude(f) * (notches?[s].idealGain(atFrequency: f) ?? 1) * (shape?.idealGain(atFrequency: f) ?? 1)
                             }, into: samples)
        }
        self.init(layout: context.layout, synthesised: signals, sampleRate: rate)
    }

    /// White noise streamed through a zero-phase FIR of `curve` (``NotchDesign/init(shaping:sampleRate:smoothingHz:)``,
    /// primed by the noise), joined with the sound's own shape: a sound whose spectrum is a curve, too long to
    /// be synthesised whole. The curve is brought to unit mean power over 0 … Nyquist, so the stream has the
    /// level in expectation (a file is measured).
    package init(whiteNoiseStreamedThrough curve: GainCurve, smoothingHz: Double, _ context: inout SignalContext) throws(ShadesError) {
        let (rate, level, seed) = (context.sampleRate, context.levelDBFS, context.seed)
        let unit = curve.normalisedToUnitPower(upToHz: rate / 2)
        context.shape = try NotchDesign(shaping: context.shape?.shaping.map(unit.adding) ?? unit, sampleRate: rate, smoothingHz: smoothingHz)
        self.init(layout: context.layout) { s in
            try! NoiseSource(colour: .white, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed, firstSignal: s)
        }
    }

    /// These signals each passed through `wrap` (an envelope): measured, not known, once wrapped.
    package func wrapped(_ wrap: @escaping @Sendable (any AudioSource) -> any AudioSource) -> GeneratorSignals {
        let make = self.make
        var signals = GeneratorSignals(layout: layout) { s in wrap(make(s)) }
        signals.renderedFrequencyHz = renderedFrequencyHz
        return signals
    }

    /// Tones of unit peak (the gain sets the level), one per frequency, measured exactly over `frames`.
    package init(layout: ChannelLayout, tonesHz: [Double], sampleRate: Double, frames: Int) {
        self.layout = layout
        make = { s in try! ToneSource(frequencyHz: tonesHz[s], sampleRate: sampleRate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
        measured = tonesHz.map { SignalMeasurement(sumOfSquares: SoundGraph.sineEnergy(cyclesPerSample: $0 / sampleRate, frames: frames), peak: 1) }
        renderedFrequencyHz = tonesHz.first
    }
}

extension RenderRequest {
    /// Refuses a length that a sound synthesised whole (``GeneratorSignals/init(whiteNoiseShapedBy:_:)``)
    /// cannot have: under ``minimumLoopFrames`` or over ``LoopNoise/largestSynthesisFrames``; `what` names it.
    /// With `streamsWhenLong`, only a loop must be short enough (a longer sound streams).
    package func validateWholeSynthesis(_ what: String, streamsWhenLong: Bool = false) throws(ShadesError) {
        if frameCount < Self.minimumLoopFrames {
            throw ShadesError(parameter: .duration, value: "\(durationSeconds) s", allowed: "at least \(Self.minimumLoopFrames) samples for \(what)")
        }
        if loop || !streamsWhenLong { try refuseLongSynthesis(what) }
    }

    /// True when a sound synthesised whole up to ``LoopNoise/largestSynthesisFrames`` streams instead: longer,
    /// and not a loop.
    package var streamsLongSynthesis: Bool { !loop && frameCount > LoopNoise.largestSynthesisFrames }
}

extension GeneratorKind {
    /// Broadband by default: no one frequency defines the sound (noise colours and the like); a kind with a
    /// defining frequency says which.
    package var hearingReference: HearingReference { .broadband(sound: "a \(name) sound") }
}

/// What a level relative to the listener's hearing refers to for one sound: dB SL reads the listener's
/// threshold there, dB HL the transducer's RETSPL there (ISO 389), and dB SPL the headphones' calibration
/// there. Each generator kind declares it (`GeneratorKind.hearingReference`).
public enum HearingReference: Sendable, Equatable {
    /// The frequency that defines the sound, Hz; `what` names it in messages ("the tone's frequency").
    case frequency(hertz: Double, what: String)
    /// No one frequency defines the sound (broadband noise, music, a mix): dB SL and dB HL have no meaning,
    /// and dB SPL uses the calibration's broadband value; `sound` names it in messages ("a music file").
    case broadband(sound: String)

    /// The defining frequency, Hz; nil for a broadband sound.
    public var frequencyHz: Double? {
        if case .frequency(let hertz, _) = self { return hertz }
        return nil
    }
}

/// A coloured-noise stream's power over the file, forecast before it is rendered (``NoisePowerForecast``),
/// so it can be written once at the gain that lands on the asked level.
package struct PowerForecast: Sendable {
    /// The forecast, made when a render asks for it (its design takes a few milliseconds).
    package let forecast: @Sendable () -> NoisePowerForecast
    /// The white-noise key of signal `s`.
    package let key: @Sendable (_ signal: Int) -> UInt64
}

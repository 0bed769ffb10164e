import Testing
import ShadesDSP

/// The one error type: its kind, a parameter problem as fields, the line composed from them with the
/// library's names or a caller's (command-line options, a preset's JSON keys), and the old string path.
@Suite struct ShadesErrorTests {
    @Test func aParameterProblemIsFieldsAndOneComposedLine() {
        let error = Parameter.frequency.outOfRange(30_000, range: .above(0, below: 24_000, unit: .hertz), note: "(Nyquist)")
        #expect(error.kind == .parameter && error.parameter == .frequency && error.path == nil)
        #expect(error.value == .number(30_000, .hertz) && error.problem == .outOfRange)
        #expect(error.valueDescription == "30000 Hz")
        #expect(error.allowedValues == AllowedValues(range: .above(0, below: 24_000, unit: .hertz), note: "(Nyquist)"))
        #expect(error.description == "frequency 30000 Hz is out of range (allowed: above 0 and below 24000 Hz (Nyquist))")
        #expect(error.message == error.description)
        #expect(error.allowed == "above 0 and below 24000 Hz (Nyquist)")
        #expect(ShadesError.runtime("disk full").allowed == nil && ShadesError.runtime("disk full").problem == nil)
    }

    @Test func eachProblemKindHasItsLine() {
        #expect(ShadesError(.frequency, .notParseable(expected: "a frequency", examples: "6kHz, 6000"), value: .given("6 kHz")).description
            == "frequency '6 kHz': not a frequency (e.g. 6kHz, 6000)")
        #expect(ShadesError(.fade, .conflicts(with: .loop), value: .number(0.05, .seconds)).description
            == "fade 50 ms cannot be combined with loop")
        #expect(ShadesError(.layers, .missing, allowed: AllowedValues(note: "one or more sources")).description
            == "layers is missing (allowed: one or more sources)")
        #expect(ShadesError(.signal, .other("is silent"), value: .text("spectrum")).description == "signal spectrum is silent")
        #expect(Parameter.amDepth.outOfRange(.nan).description == "AM depth nan is out of range (allowed: 0 … 1)")
        #expect(Parameter.amDepth.outOfRange(.nan) == Parameter.amDepth.outOfRange(.nan))
    }

    /// A command line names parameters by its options, through a mapping of identities; what it does not
    /// map keeps the library's name.
    @Test func aCommandLineNamesParametersByItsOptions() {
        let flags: [ParameterID: String] = [.amDepth: "--am-depth", .fade: "--fade", .loop: "--loop", .cycleRate: "--cycle-rate",
                                            .edgeBoost: "--edge-boost", .mmlStep: "--mml-step", .toneLength: "--tone-length"]
        func cli(_ error: ShadesError) -> String { error.described(naming: { flags[$0] }) }
        #expect(cli(Parameter.amDepth.outOfRange(1.5)) == "--am-depth 1.5 is out of range (allowed: 0 … 1)")
        #expect(cli(Parameter.cycleRate.outOfRange(20)) == "--cycle-rate 20 Hz is out of range (allowed: 0.1 … 10 Hz)")
        #expect(cli(Parameter.edgeBoost.outOfRange(40)) == "--edge-boost 40 dB is out of range (allowed: 0 … 30 dB)")
        #expect(cli(ShadesError(.fade, .conflicts(with: .loop), value: .number(0.05, .seconds)))
            == "--fade 50 ms cannot be combined with --loop")
        #expect(cli(Parameter.amRate.outOfRange(200)) == "AM rate 200 Hz is out of range (allowed: 0.5 … 100 Hz)")
        // The library's own line never holds an option's spelling.
        #expect(Parameter.amDepth.outOfRange(1.5).description == "AM depth 1.5 is out of range (allowed: 0 … 1)")
        #expect(Parameter.toneLength.outOfRange(1, range: .above(0, atMost: 1.0 / 6, unit: .seconds), note: "the slot").description
            == "tone length 1 s is out of range (allowed: above 0 and at most 166.67 ms, the slot)")
    }

    /// A preset parser names parameters by their JSON key paths and puts the file's position first.
    @Test func aPresetNamesParametersByKeyPathsAtTheirPosition() {
        let keys: [ParameterID: String] = [.amDepth: "am.depth", .notchCentre: "notch.centreHz", .rate: "rate"]
        var error = Parameter.amDepth.outOfRange(1.5)
        (error.path, error.line, error.column) = ("Presets/x.json", 12, 5)
        #expect(error.described(naming: { keys[$0] }) == "Presets/x.json:12:5: am.depth 1.5 is out of range (allowed: 0 … 1)")
        #expect(error.description == "Presets/x.json:12:5: AM depth 1.5 is out of range (allowed: 0 … 1)")
        let rate = Parameter.rate.outOfRange(4_000).within("defaults")
        #expect(rate.described(naming: { keys[$0] }) == "defaults: rate 4000 Hz is out of range (allowed: 8000 … 192000 Hz)")
        #expect(rate.within("loudness").description == "loudness: defaults: sample rate 4000 Hz is out of range (allowed: 8000 … 192000 Hz)")
    }

    /// A value given as text composes the same line as a typed one, named by its identity.
    @Test func aValueAsTextComposesItsLine() {
        let error = ShadesError(parameter: .frequency, value: "30000 Hz", allowed: "above 0 and below Nyquist (24000 Hz)")
        #expect(error.description == "frequency 30000 Hz is out of range (allowed: above 0 and below Nyquist (24000 Hz))")
        #expect(error.parameter == .frequency && error.problem == .outOfRange && error.value == .text("30000 Hz"))
        #expect(error.allowed == "above 0 and below Nyquist (24000 Hz)")
        #expect(ShadesError(parameter: .fade, value: "1 s", problem: "cannot be combined with loop", allowed: "no loop").description
            == "fade 1 s cannot be combined with loop (allowed: no loop)")
        // The caller's mapping names it.
        let step = ShadesError(parameter: .mmlStep, value: "3 dB", allowed: "1 or 2 dB")
        #expect(step.description == "MML step 3 dB is out of range (allowed: 1 or 2 dB)")
        #expect(step.described(naming: { $0 == .mmlStep ? "--mml-step" : nil }) == "--mml-step 3 dB is out of range (allowed: 1 or 2 dB)")
        let loudness = ShadesError(.parameter, "loudness: channels 0 is out of range (allowed: 1 … 64)", parameter: .channels)
        #expect(loudness.parameter == .channels && loudness.problem == nil)
        #expect(loudness.description == "loudness: channels 0 is out of range (allowed: 1 … 64)")
    }

    @Test func settingTheMessageMakesAnErrorOfText() {
        var error = Parameter.amDepth.outOfRange(2).within("sound s")
        error.message = "sound s: replaced"
        #expect(error.description == "sound s: replaced" && error.problem == nil && error.parameter == .amDepth)
    }

    @Test func kindsAndFilePositions() {
        #expect(ShadesError.usage("u").kind == .parameter)
        #expect(ShadesError.input("i").kind == .input)
        #expect(ShadesError.runtime("r").kind == .runtime)
        #expect(ShadesError(path: "Presets/a.json", line: 12, column: 5, message: "unknown key 'titel'").description
            == "Presets/a.json:12:5: unknown key 'titel'")
        #expect(ShadesError(path: "Presets/a.json", line: 3, message: "m").description == "Presets/a.json:3: m")
        let whole = ShadesError(path: "Presets", message: "cannot read the folder")
        #expect(whole.description == "Presets: cannot read the folder" && whole.message == "cannot read the folder")
        #expect(whole.kind == .parameter)
        #expect(Parameter.level.outOfRange(1).kind == .parameter)
    }
}

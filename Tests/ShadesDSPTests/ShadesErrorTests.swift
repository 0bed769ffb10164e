import Testing
import ShadesDSP

/// The one error type: its line, its kind, the parameter it names and what it allows.
@Suite struct ShadesErrorTests {
    @Test func aBadParameterIsOneLineNamingTheParameterValueAndRange() {
        let error = ShadesError(parameter: "frequency", value: "30000 Hz", allowed: "above 0 and below Nyquist (24000 Hz)")
        #expect(error.description == "frequency 30000 Hz is out of range (allowed: above 0 and below Nyquist (24000 Hz))")
        #expect(error.kind == .parameter && error.parameter == "frequency" && error.path == nil)
        #expect(error.allowed == "above 0 and below Nyquist (24000 Hz)")
        #expect(ShadesError(parameter: "fade", value: "1 s", problem: "cannot be combined with loop", allowed: "no loop").description
            == "fade 1 s cannot be combined with loop (allowed: no loop)")
        #expect(ShadesError.runtime("disk full").allowed == nil)
    }

    @Test func namingRenamesTheParameterWhereItIsNamedOnly() {
        let error = ShadesError(parameter: "centre", value: "0 Hz", allowed: "a centre above 0 Hz")
        let named = error.naming(["centre": "notch"])
        #expect(named.description == "notch 0 Hz is out of range (allowed: a centre above 0 Hz)")
        #expect(named.parameter == "notch" && named.kind == .parameter)
        #expect(error.naming(["width": "notch-width"]) == error)
        #expect(ShadesError.usage("no parameter").naming(["centre": "notch"]) == .usage("no parameter"))
        // A parameter inside a longer message: its first mention as a word of its own.
        let loudness = ShadesError(.parameter, "loudness: channels 0 is out of range (allowed: 1 … 64)", parameter: "channels")
        #expect(loudness.naming(["channels": "ch"]).description == "loudness: ch 0 is out of range (allowed: 1 … 64)")
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
    }
}

import ShadesDSP

// The parameters ShadesRender checks beyond ShadesDSP's (the procedures' own are ShadesProcedures') (``ParameterID``: an identity and a neutral name;
// the command line and the preset parser name them their own way).
extension ParameterID {
    /// The ears a layer of a mix is for.
    package static let ears = ParameterID("ears", name: "ears")
    /// A layer's gain in a mix, dB.
    package static let layerGain = ParameterID("layerGain", name: "layer gain")
    /// Where a fade-out ends and silence begins, s.
    package static let fadeEnd = ParameterID("fadeEnd", name: "fade end")
    /// A list of frequencies (audiometry), Hz.
    package static let frequencies = ParameterID("frequencies", name: "frequencies")
    /// A frequency range from … to (pitch-match stimuli), Hz.
    package static let frequencyRange = ParameterID("frequencyRange", name: "frequency range")
    /// A step between frequencies, octaves.
    package static let step = ParameterID("step", name: "step")
    /// The lowest and highest frequency of the pitch-match grid, Hz.
    package static let fromFrequency = ParameterID("fromFrequency", name: "lowest frequency")
    package static let toFrequency = ParameterID("toFrequency", name: "highest frequency")
    /// A residual-inhibition masker's length and its onset and offset ramps, s.
    package static let masker = ParameterID("masker", name: "masker length")
    package static let onsetRamp = ParameterID("onsetRamp", name: "onset ramp")
    package static let offsetRamp = ParameterID("offsetRamp", name: "offset ramp")
    /// The masker's level above the reference, dB.
    package static let above = ParameterID("above", name: "masker level above the reference")
    /// A minimum-masking-level probe's length, s, and the lowest and highest probe re the reference, dB.
    package static let probe = ParameterID("probe", name: "probe length")
    package static let probeFrom = ParameterID("probeFrom", name: "lowest probe level")
    package static let probeTo = ParameterID("probeTo", name: "highest probe level")
    /// The frequency of an octave-confusion check, Hz.
    package static let octaveCheck = ParameterID("octaveCheck", name: "octave check")
    /// Silence after a residual-inhibition masker, s.
    package static let silence = ParameterID("silence", name: "silence")
    /// The levels of the minimum-masking-level probes, dB re the reference.
    package static let mmlRange = ParameterID("mmlRange", name: "MML range")
    /// A spectral shape (gains over frequency) of a sound.
    package static let shape = ParameterID("shape", name: "spectral shape")
    /// The patient's tinnitus frequency, Hz (the catalogue's personalised sounds).
    package static let tinnitusFrequency = ParameterID("tinnitusFrequency", name: "tinnitus frequency")
}

extension Parameter {
    /// The patient's tinnitus frequency, Hz; below Nyquist where it is used.
    package static let tinnitusFrequency = Parameter(.tinnitusFrequency, unit: .hertz, range: Parameter.frequency.range)
}

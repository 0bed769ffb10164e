import ShadesDSP

// The parameters of the procedures (``ParameterID``: an identity and a neutral name; the command line names
// them by its options).
extension ParameterID {
    /// A pitch-matching procedure's range, start and answers, and a simulated listener.
    package static let matchRange = ParameterID("matchRange", name: "matching range")
    package static let matchStart = ParameterID("matchStart", name: "start frequency")
    package static let answer = ParameterID("answer", name: "answer")
    package static let listener = ParameterID("listener", name: "listener")
    /// Audiometry: the ear tested, a simulated listener's audiogram and answers, the first level.
    package static let ear = ParameterID("ear", name: "ear")
    package static let simulatedAudiogram = ParameterID("simulatedAudiogram", name: "simulated audiogram")
    package static let falseAlarms = ParameterID("falseAlarms", name: "false-alarm probability")
    package static let misses = ParameterID("misses", name: "miss probability")
    package static let startLevel = ParameterID("startLevel", name: "start level")
    /// The fitting rule of a spectral shape made from an audiogram, and its largest gain, dB.
    package static let fittingRule = ParameterID("fittingRule", name: "fitting rule")
    package static let maximumGain = ParameterID("maximumGain", name: "maximum gain")
}

/// A bad parameter: the message names the parameter, the value, what is wrong and what is allowed.
public struct ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    public let parameter: String
    public let value: String
    /// What is wrong, e.g. "is out of range" or "cannot be combined with --loop".
    public let problem: String
    public let allowed: String

    /// A value outside its allowed range.
    public init(parameter: String, value: String, allowed: String) {
        self.init(parameter: parameter, value: value, problem: "is out of range", allowed: allowed)
    }

    public init(parameter: String, value: String, problem: String, allowed: String) {
        (self.parameter, self.value, self.problem, self.allowed) = (parameter, value, problem, allowed)
    }

    /// The same error with its parameter named as the caller knows it (e.g. a command-line option):
    /// `names[parameter]`, or unchanged when `names` has no entry for it.
    public func naming(_ names: [String: String]) -> ParameterError {
        ParameterError(parameter: names[parameter] ?? parameter, value: value, problem: problem, allowed: allowed)
    }

    public var description: String { "\(parameter) \(value) \(problem) (allowed: \(allowed))" }
}

/// A parameter outside its allowed range: the message names the parameter, the value and the range.
public struct ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    public let parameter: String
    public let value: String
    public let allowed: String

    public init(parameter: String, value: String, allowed: String) {
        (self.parameter, self.value, self.allowed) = (parameter, value, allowed)
    }

    public var description: String { "\(parameter) \(value) is out of range (allowed: \(allowed))" }
}

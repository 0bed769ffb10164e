/// Every error Shades throws: whose the problem is (``Kind``), and either a parameter problem as fields
/// (``parameter``, `value`, `problem`, `allowedValues`) or a line of text (a file, the system).
///
/// A parameter problem's line is composed from its fields when it is shown, naming the parameter by the
/// library's neutral name (`frequency 30000 Hz is out of range (allowed: above 0 and below 24000 Hz
/// (Nyquist))`) or by a name the caller supplies: ``described(naming:)`` with a command line's options
/// gives `--am-depth 1.5 is out of range (allowed: 0 … 1)`, with a preset's JSON keys
/// `Presets/x.json:12:5: am.depth 1.5 is out of range (allowed: 0 … 1)`.
public struct ShadesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whose the problem is; a command line exits with 2 for ``parameter`` and 1 for the others.
    public enum Kind: Sendable, Equatable, Hashable {
        /// The caller's input: a parameter, a combination of parameters, a preset.
        case parameter
        /// A file that cannot be read, is corrupt, or does not fit what it is used for.
        case input
        /// Everything else: a file that cannot be written, the system, a library, a measurement that cannot be made.
        case runtime
    }

    public package(set) var kind: Kind
    /// The parameter at fault (set for every parameter problem, and for some errors of text alone).
    public package(set) var parameter: ParameterID?
    /// The value at fault, with its unit or as the caller typed it; nil for ``ParameterProblem/missing``.
    package var value: ParameterValue?
    /// The value at fault as text, with its unit ("30000 Hz") or as the caller typed it ("'6 kHz'"); nil for
    /// `ParameterProblem.missing` and errors of text alone.
    public var valueDescription: String? { value?.description }
    /// What is wrong with the parameter; nil for an error of text alone.
    package var problem: ParameterProblem?
    /// What the parameter allows here.
    package var allowedValues: AllowedValues?
    /// What the problem is in, shown before it: "loudness" gives "loudness: channels 0 is out of range …".
    package var context: String?
    /// The file the problem is in; the line begins with it and the ``line`` and ``column``:
    /// `Presets/default.json:12:5: unknown key 'titel' (did you mean 'titles'?)`.
    public package(set) var path: String?
    /// Line in ``path``, from 1.
    public package(set) var line: Int?
    /// Column in ``path``, from 1, in Unicode scalars.
    public package(set) var column: Int?
    /// The `errno` of a failed system call (ShadesIO's `FileSystem`).
    package var errorNumber: Int32?
    /// For a problem inside a mix: the layer indices from the outermost mix down (`[2, 0]`: layer 0 of
    /// layer 2), so a preset can point at the layer's keys.
    package var layerPath: [Int] = []
    /// The line of an error of text alone.
    private var text: String

    /// A parameter problem, as fields.
    package init(_ parameter: ParameterID, _ problem: ParameterProblem, value: ParameterValue? = nil,
                allowed: AllowedValues? = nil, kind: Kind = .parameter) {
        (self.kind, self.parameter, self.problem, self.value, self.allowedValues, text) = (kind, parameter, problem, value, allowed, "")
    }

    /// An error of text alone; `parameter` names the parameter it is about, if any.
    package init(_ kind: Kind, _ message: String, parameter: ParameterID? = nil) {
        (self.kind, self.text, self.parameter) = (kind, message, parameter)
    }

    /// A bad value of `parameter`, as text: `problem` says what is wrong ("is out of range", "cannot be
    /// combined with loop"), `allowed` what is allowed.
    package init(parameter: ParameterID, value: String, problem: String = "is out of range", allowed: String) {
        self.init(parameter, problem == "is out of range" ? .outOfRange : .other(problem), value: .text(value),
                  allowed: AllowedValues(note: allowed))
    }

    /// A problem at a place in a file (a catalogue file's line and column).
    package init(path: String, line: Int? = nil, column: Int? = nil, message: String, kind: Kind = .parameter) {
        self.init(kind, message)
        (self.path, self.line, self.column) = (path, line, column)
    }

    /// The caller's input (``Kind/parameter``).
    package static func usage(_ message: String) -> ShadesError { ShadesError(.parameter, message) }
    /// A file that cannot be read (``Kind/input``).
    package static func input(_ message: String) -> ShadesError { ShadesError(.input, message) }
    /// Any other failure (``Kind/runtime``).
    package static func runtime(_ message: String) -> ShadesError { ShadesError(.runtime, message) }

    /// The same error inside `context`: "loudness" shows "loudness: channels 0 is out of range …".
    package func within(_ context: String) -> ShadesError {
        var error = self
        error.context = self.context.map { "\(context): \($0)" } ?? context
        return error
    }

    /// What is allowed, as text (`allowedValues`).
    public var allowed: String? { allowedValues.map(\.description) }

    /// The problem in one line, after the file's position if there is one, with the library's names.
    /// Setting it makes the error one of text alone.
    package var message: String {
        get { body(naming: { _ in nil }) }
        set {
            text = newValue
            (problem, value, allowedValues, context) = (nil, nil, nil, nil)
        }
    }

    public var description: String { described(naming: { _ in nil }) }

    /// The whole line, naming each parameter `name(id)` where that gives a name (a command-line option,
    /// a JSON key path) and by its library name elsewhere.
    public func described(naming name: (ParameterID) -> String?) -> String {
        let body = body(naming: name)
        guard let path else { return body }
        let position = path + (line.map { ":\($0)" + (column.map { ":\($0)" } ?? "") } ?? "")
        return "\(position): \(body)"
    }

    /// The line without the file's position.
    private func body(naming name: (ParameterID) -> String?) -> String {
        let line = problem.map { problemLine($0, naming: name) } ?? text
        return context.map { "\($0): \(line)" } ?? line
    }

    /// "NAME VALUE is out of range (allowed: …)", "NAME 'TEXT': not a frequency (e.g. …)", ….
    private func problemLine(_ problem: ParameterProblem, naming name: (ParameterID) -> String?) -> String {
        func named(_ id: ParameterID) -> String { name(id) ?? id.name }
        let subject = parameter.map(named) ?? "value"
        let shown = value.map { " \($0)" } ?? ""
        var line: String
        var allowed = allowedValues.map { "allowed: \($0)" }
        if allowed == "allowed: " { allowed = nil }
        switch problem {
        case .outOfRange: line = "\(subject)\(shown) is out of range"
        case .notParseable(let expected, let examples):
            line = "\(subject)\(shown): not \(expected)"
            // "(allowed: above 0 Hz; e.g. 6kHz, 6000)": what is allowed, then the forms that read.
            if !examples.isEmpty { allowed = (allowed.map { $0 + "; " } ?? "") + "e.g. \(examples)" }
        case .conflicts(let other): line = "\(subject)\(shown) cannot be combined with \(named(other))"
        case .missing: line = "\(subject) is missing"
        case .other(let words): line = "\(subject)\(shown) \(words)"
        }
        return allowed.map { line + " (\($0))" } ?? line
    }
}

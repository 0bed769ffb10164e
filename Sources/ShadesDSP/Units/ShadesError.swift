/// Every error Shades throws: the problem in one line, whose it is (``Kind``), and the parameter or file it
/// is about. A bad parameter's line names the parameter, the value, what is wrong and what is allowed:
/// `frequency 30000 Hz is out of range (allowed: above 0 and below Nyquist (24000 Hz))`.
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
    /// The parameter at fault as the library names it (`frequency`, `loop`); ``message`` names it and
    /// ``naming(_:)`` renames it there.
    public package(set) var parameter: String?
    /// The file the problem is in; the line begins with it and the ``line`` and ``column``:
    /// `Presets/default.json:12:5: unknown key 'titel' (did you mean 'titles'?)`.
    public package(set) var path: String?
    /// Line in ``path``, from 1.
    public package(set) var line: Int?
    /// Column in ``path``, from 1, in Unicode scalars.
    public package(set) var column: Int?
    /// The `errno` of a failed system call (ShadesIO's `FileSystem`).
    package var errorNumber: Int32?
    /// The problem in one line, after the file's position if there is one.
    public package(set) var message: String

    package init(_ kind: Kind, _ message: String, parameter: String? = nil) {
        (self.kind, self.message, self.parameter) = (kind, message, parameter)
    }

    /// A value outside its allowed range.
    package init(parameter: String, value: String, allowed: String) {
        self.init(parameter: parameter, value: value, problem: "is out of range", allowed: allowed)
    }

    /// A bad value: `problem` says what is wrong, e.g. "is out of range" or "cannot be combined with loop".
    package init(parameter: String, value: String, problem: String, allowed: String) {
        self.init(.parameter, "\(parameter) \(value) \(problem) (allowed: \(allowed))", parameter: parameter)
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

    /// What is allowed: the text of the message's last "(allowed: …)", if it has one.
    public var allowed: String? {
        guard let start = message.ranges(of: "(allowed: ").last else { return nil }
        let rest = message[start.upperBound...]
        return String(rest.hasSuffix(")") ? rest.dropLast() : rest)
    }

    /// The same error with its parameter named as the caller knows it (e.g. a command-line option):
    /// `names[parameter]`, or unchanged when `names` has no entry for it.
    package func naming(_ names: [String: String]) -> ShadesError {
        guard let parameter, let name = names[parameter], let at = Self.firstMention(of: parameter, in: message) else { return self }
        var renamed = self
        renamed.parameter = name
        renamed.message.replaceSubrange(at, with: name)
        return renamed
    }

    public var description: String {
        guard let path else { return message }
        let position = path + (line.map { ":\($0)" + (column.map { ":\($0)" } ?? "") } ?? "")
        return "\(position): \(message)"
    }

    /// The first place `word` stands as a word of its own in `text` (not inside a longer name).
    private static func firstMention(of word: String, in text: String) -> Range<String.Index>? {
        func isNamePart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "-" || c == "_" }
        for range in text.ranges(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !(before.map(isNamePart) ?? false) && !(after.map(isNamePart) ?? false) { return range }
        }
        return nil
    }
}

import ShadesDSP

/// A line and column (both from 1; columns count Unicode scalars) in a JSON file.
package struct SourceLocation: Sendable, Equatable {
    package var line: Int
    package var column: Int
    package init(line: Int, column: Int) { (self.line, self.column) = (line, column) }
}

extension ShadesError {
    /// A problem at `location` (nil: the whole file) in the JSON file `path`.
    package init(path: String, at location: SourceLocation?, _ message: String) {
        self.init(path: path, line: location?.line, column: location?.column, message: message)
    }

    /// A problem at `location` of a file not yet named (the JSON scanner's; the reader adds the path).
    package init(location: SourceLocation, message: String) {
        self.init(.parameter, message)
        (line, column) = (location.line, location.column)
    }

    /// The line and column, where there is a line.
    package var location: SourceLocation? { line.map { SourceLocation(line: $0, column: column ?? 1) } }
}

/// Walks a JSON tree with a schema's keys, recording where each path (`categories[0].sound.layers[1].am`)
/// starts, so every problem can name its file, line and column. Shared by the sound reader and the
/// preset parser. Without a file (a tree from `Codable`), errors carry no position.
package final class JSONTreeReader {
    package let file: String?
    package var locations: [String: SourceLocation] = [:]

    package init(file: String?) { self.file = file }

    package func error(_ location: SourceLocation?, _ message: String) -> ShadesError {
        guard let file else { return .usage(message) }
        return ShadesError(path: file, at: location, message)
    }

    /// `value` as an object whose keys must all be in `keys`; records the path's and each key's location.
    package func object(_ value: JSONValue, path: String, what: String, keys: [String]) throws(ShadesError) -> JSONObjectReader {
        guard case .object(let members) = value.kind else {
            throw error(value.location, "\(what) must be an object, not \(value.kind.name)")
        }
        locations[path] = value.location
        var byKey: [String: Member] = [:]
        for member in members {
            guard keys.contains(member.key) else {
                throw error(member.keyLocation, "unknown key '\(member.key)'" + suggestion(for: member.key, among: keys, noun: "keys"))
            }
            if byKey[member.key] != nil { throw error(member.keyLocation, "duplicate key '\(member.key)'") }
            byKey[member.key] = member
            locations[path.isEmpty ? member.key : "\(path).\(member.key)"] = member.keyLocation
        }
        return JSONObjectReader(reader: self, path: path, what: what, location: value.location, members: byKey)
    }

    /// Where `path` (or, failing that, its nearest recorded parent) starts.
    package func location(of path: String) -> SourceLocation? { Self.location(of: path, in: locations) }

    /// Where `path` (or, failing that, its nearest recorded parent) starts among `locations`.
    package static func location(of path: String, in locations: [String: SourceLocation]) -> SourceLocation? {
        var path = Substring(path)
        while !path.isEmpty {
            if let location = locations[String(path)] { return location }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = path[..<cut]
        }
        return nil
    }
}

/// One JSON object being read: typed getters whose errors name the key and its position.
package struct JSONObjectReader {
    package let reader: JSONTreeReader
    package let path: String
    package let what: String
    package let location: SourceLocation
    package let members: [String: Member]

    package enum NumberForm { case plain, hertz }

    package subscript(key: String) -> JSONValue? { members[key]?.value }

    package func location(of key: String) -> SourceLocation? { members[key]?.keyLocation }

    /// The path of `key` inside this object.
    package func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func missing(_ key: String, because reason: String? = nil) -> ShadesError {
        reader.error(location, "missing key '\(key)' in \(what)" + (reason.map { " (\($0))" } ?? ""))
    }

    private func wrongType(_ key: String, _ value: JSONValue, expected: String) -> ShadesError {
        reader.error(value.location, "'\(key)' must be \(expected), not \(value.kind.name)")
    }

    package func string(_ key: String, required: Bool = false) throws(ShadesError) -> String? {
        guard let value = self[key] else { if required { throw missing(key) } else { return nil } }
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: "a string") }
        return text
    }

    /// A string that must be one of `allowed`.
    package func choice(_ key: String, _ allowed: [String]) throws(ShadesError) -> String? {
        guard let text = try string(key) else { return nil }
        guard allowed.contains(text) else {
            throw reader.error(self[key]!.location, "unknown \(key) '\(text)'" + suggestion(for: text, among: allowed, noun: "values"))
        }
        return text
    }

    /// A value of a `String`-backed enumeration.
    package func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(ShadesError) -> T?
        where T.RawValue == String {
        try choice(key, T.allCases.map(\.rawValue)).flatMap(T.init(rawValue:))
    }

    package func bool(_ key: String) throws(ShadesError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let flag) = value.kind else { throw wrongType(key, value, expected: "true or false") }
        return flag
    }

    /// A number; with `.hertz` also a string such as "6kHz" or "440Hz".
    package func number(_ key: String, form: NumberForm = .plain) throws(ShadesError) -> Double? {
        guard let value = self[key] else { return nil }
        switch value.kind {
        case .number(let number, _): return number
        case .string(let text) where form == .hertz:
            // Named by the key as the file spells it.
            do throws(ShadesError) { return try ValueParsing.hertz(text, parameter: ParameterID(rawValue: key)) } catch {
                throw reader.error(value.location, "\(error)")
            }
        default:
            throw wrongType(key, value, expected: form == .hertz ? "a number of Hz or a string such as \"6kHz\"" : "a number")
        }
    }

    /// A list of numbers (gains in dB).
    package func numbers(_ key: String) throws(ShadesError) -> [Double]? {
        guard let value = self[key] else { return nil }
        guard case .array(let items) = value.kind else { throw wrongType(key, value, expected: "an array of numbers") }
        var numbers: [Double] = []
        for item in items {
            guard case .number(let number, _) = item.kind else { throw wrongType(key, item, expected: "a number") }
            numbers.append(number)
        }
        return numbers
    }

    /// A whole number 0 … 2^64 − 1 (seed, byte and frame counts).
    package func unsigned(_ key: String) throws(ShadesError) -> UInt64? {
        guard let value = self[key] else { return nil }
        guard case .number(_, let text) = value.kind, let whole = UInt64(text) else {
            throw wrongType(key, value, expected: "a whole number 0 … 18446744073709551615")
        }
        return whole
    }

    /// A whole number that fits an `Int` (counts).
    package func integer(_ key: String) throws(ShadesError) -> Int? {
        guard let value = self[key] else { return nil }
        guard case .number(_, let text) = value.kind, let whole = Int(text) else {
            throw wrongType(key, value, expected: "a whole number")
        }
        return whole
    }

    package func array(_ key: String, required: Bool) throws(ShadesError) -> [JSONValue] {
        guard let value = self[key] else { if required { throw missing(key) } else { return [] } }
        guard case .array(let items) = value.kind else { throw wrongType(key, value, expected: "an array") }
        return items
    }
}

/// " (did you mean 'x'?)" for the nearest name within `maxEdits` edits (default 3), else " (allowed <noun>: a,
/// b, c)".
package func suggestion(for name: String, among names: [String], noun: String, maxEdits: Int = 3) -> String {
    let scored = names.map { (name: $0, distance: levenshtein(name.lowercased(), $0.lowercased())) }
    if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= maxEdits {
        return " (did you mean '\(best.name)'?)"
    }
    return " (allowed \(noun): \(names.joined(separator: ", ")))"
}

/// Edit distance (insertions, deletions, substitutions) between two strings, by Unicode scalar.
package func levenshtein(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

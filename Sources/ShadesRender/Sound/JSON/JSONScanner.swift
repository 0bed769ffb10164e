import ShadesDSP

// JSON with positions: the syntax layer under the sound reader and PresetParser. Every value and key keeps its line and
// column, so a preset's errors can name the exact spot.

/// A JSON value and where it starts.
package struct JSONValue: Sendable {
    package indirect enum Kind: Sendable {
        case object([Member])
        case array([JSONValue])
        case string(String)
        /// The value and its text (for exact whole numbers such as seeds).
        case number(Double, String)
        case bool(Bool)
        case null

        package var name: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            case .string: return "a string"
            case .number: return "a number"
            case .bool: return "true/false"
            case .null: return "null"
            }
        }
    }
    package var kind: Kind
    package var location: SourceLocation

    package init(kind: Kind, location: SourceLocation) { (self.kind, self.location) = (kind, location) }
}

/// One key of an object, in document order.
package struct Member: Sendable {
    package var key: String
    package var keyLocation: SourceLocation
    package var value: JSONValue
}

/// A strict RFC 8259 reader that tracks line and column (Foundation's errors on Linux give at most a
/// character offset), so a syntax error names the exact spot and every key keeps its position.
package struct JSONScanner {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0
    private static let maximumDepth = 256

    package init(bytes: [UInt8]) {
        // A UTF-8 byte-order mark is skipped.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    package mutating func document() throws(ShadesError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("the file is empty (expected a JSON object)") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(bytes[index])) after the end of the JSON value") }
        return value
    }

    private var here: SourceLocation { SourceLocation(line: line, column: column) }

    private func fail(_ message: String) -> ShadesError { ShadesError(location: here, message: message) }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func advance() {
        if bytes[index] == 0x0A {
            line += 1
            column = 1
        } else if bytes[index] & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
            column += 1
        }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            if byte == 0x0D { index += 1; continue }  // CR of CRLF: no column
            advance()
        }
    }

    private mutating func parseValue() throws(ShadesError) -> JSONValue {
        let start = here
        guard let byte = current else { throw fail("unexpected end of file (expected a value)") }
        switch byte {
        case UInt8(ascii: "{"): return JSONValue(kind: try parseObject(), location: start)
        case UInt8(ascii: "["): return JSONValue(kind: try parseArray(), location: start)
        case UInt8(ascii: "\""): return JSONValue(kind: .string(try parseString()), location: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONValue(kind: try parseNumber(), location: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONValue(kind: .bool(true), location: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONValue(kind: .bool(false), location: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONValue(kind: .null, location: start)
        default: throw fail("unexpected \(describe(byte)) (expected a value)")
        }
    }

    private mutating func literal(_ word: String) throws(ShadesError) {
        let start = here
        for expected in word.utf8 {
            guard current == expected else { throw ShadesError(location: start, message: "invalid literal (expected '\(word)')") }
            advance()
        }
    }

    private mutating func enter() throws(ShadesError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nested more than \(Self.maximumDepth) levels deep (allowed: up to \(Self.maximumDepth) levels)") }
    }

    private mutating func parseObject() throws(ShadesError) -> JSONValue.Kind {
        try enter()
        defer { depth -= 1 }
        advance()  // {
        var members: [Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { advance(); return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                if current == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                guard let byte = current else { throw fail("unexpected end of file (expected a key)") }
                throw fail("unexpected \(describe(byte)) (expected a key in double quotes)")
            }
            let keyLocation = here
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                guard let byte = current else { throw fail("unexpected end of file (expected ':')") }
                throw fail("unexpected \(describe(byte)) (expected ':' after key '\(key)')")
            }
            advance()
            skipWhitespace()
            members.append(Member(key: key, keyLocation: keyLocation, value: try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "}"): advance(); return .object(members)
            case nil: throw fail("unexpected end of file (expected ',' or '}')")
            case let byte?: throw fail("unexpected \(describe(byte)) (expected ',' or '}'; missing comma?)")
            }
        }
    }

    private mutating func parseArray() throws(ShadesError) -> JSONValue.Kind {
        try enter()
        defer { depth -= 1 }
        advance()  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { advance(); return .array(items) }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "]"): advance(); return .array(items)
            case nil: throw fail("unexpected end of file (expected ',' or ']')")
            case let byte?: throw fail("unexpected \(describe(byte)) (expected ',' or ']'; missing comma?)")
            }
        }
    }

    private mutating func parseString() throws(ShadesError) -> String {
        advance()  // opening quote
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        while true {
            guard let byte = current else { throw fail("unexpected end of file inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                advance()
                guard let escape = current else { throw fail("unexpected end of file inside a string") }
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    advance()
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), current == UInt8(ascii: "\\"),
                       index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
                        advance(); advance()
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid UTF-16 surrogate pair in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape (lone surrogate)") }
                    scalars.append(scalar)
                    continue
                default: throw fail("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
                advance()
            case 0..<0x20:
                throw fail(byte == 0x0A ? "line break inside a string (missing closing '\"'?)" : "control character inside a string")
            default:
                raw.append(byte)
                advance()
            }
        }
    }

    private mutating func hex4() throws(ShadesError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = UInt32(String(Unicode.Scalar(byte)), radix: 16) else {
                throw fail("invalid \\u escape (expected 4 hex digits)")
            }
            code = code * 16 + digit
            advance()
        }
        return code
    }

    private mutating func parseNumber() throws(ShadesError) -> JSONValue.Kind {
        let start = index, startLocation = here
        func digits(_ scanner: inout JSONScanner) -> Int {
            var count = 0
            while let byte = scanner.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { scanner.advance(); count += 1 }
            return count
        }
        if current == UInt8(ascii: "-") { advance() }
        let leadingZero = current == UInt8(ascii: "0")
        let whole = digits(&self)
        var valid = whole > 0 && !(leadingZero && whole > 1)
        if current == UInt8(ascii: ".") { advance(); valid = valid && digits(&self) > 0 }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            valid = valid && digits(&self) > 0
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard valid, let value = Double(text), value.isFinite else {
            throw ShadesError(location: startLocation, message: "invalid number '\(text)'")
        }
        return .number(value, text)
    }
}

import ShadesPlatform

// Text helpers for the command line's output, on the C library rather than Foundation (the tool links only
// FoundationEssentials: it starts in about half the time).

extension String {
    #if canImport(FoundationEssentials)
    /// printf-style formatting (`vsnprintf`): `String(format: "%.2f", x)`. Where there is no
    /// FoundationEssentials (Apple systems) the files import Foundation, whose `String(format:)` this one
    /// would make ambiguous; it formats numbers the same way (no locale).
    init(format: String, _ arguments: CVarArg...) {
        var buffer = [CChar](repeating: 0, count: 64)
        while true {
            let needed = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
            if needed < 0 { self = ""; return }
            if Int(needed) < buffer.count { break }
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
        }
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif

    /// The string cut or padded with spaces to `length` characters.
    func padded(to length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }

    /// The last path component ("song.wav" of "music/song.wav").
    var lastPathComponent: String { split(separator: "/").last.map(String.init) ?? self }

    /// The path without its extension ("music/song" of "music/song.wav"); a leading dot is not one.
    var deletingPathExtension: String {
        guard let dot = lastIndex(of: "."), dot != startIndex, !self[dot...].contains("/"), self[index(before: dot)] != "/" else { return self }
        return String(self[..<dot])
    }

    /// The text as lines of at most `width` characters (at least 1): each line of the text is a paragraph,
    /// wrapped between words, its continuation lines indented as it is; a word too long for a line is cut.
    func wrapped(toWidth width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = String(paragraph.prefix { $0 == " " }.prefix(width / 2))
            let room = max(1, width - indent.count)
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count <= room {
                    line += " " + word
                    continue
                }
                if !line.isEmpty { lines.append(indent + line) }
                var rest = word
                while rest.count > room {
                    lines.append(indent + rest.prefix(room))
                    rest = rest.dropFirst(room)
                }
                line = String(rest)
            }
            lines.append(line.isEmpty ? "" : indent + line)
        }
        return lines
    }

    /// Without leading and trailing white space.
    var trimmed: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// `command` as an example line of a command's help: indented two spaces and, when longer than a help line
/// (79 characters: ArgumentParser wraps the discussion at 80 columns, between words, which would break the
/// command), cut before an option into lines ending in ` \` (the shell's line continuation), each next line
/// indented two spaces more. So an example reads whole on an 80-column terminal and still runs when copied.
func helpExample(_ command: String) -> String {
    let width = 79
    // An option with its values is one piece: "--frequency 6kHz", "--harmonics -12,-20".
    var pieces: [String] = []
    for word in command.split(separator: " ").map(String.init) {
        let isOption = word.hasPrefix("--") || (word.count == 2 && word.hasPrefix("-") && word.last!.isLetter)
        if isOption || pieces.isEmpty { pieces.append(word) } else { pieces[pieces.count - 1] += " " + word }
    }
    guard let first = pieces.first else { return "" }
    var lines: [String] = [], line = "  " + first
    for piece in pieces.dropFirst() {
        if line.count + 1 + piece.count + 2 > width {
            lines.append(line + " \\")
            line = "    " + piece
        } else {
            line += " " + piece
        }
    }
    return (lines + [line]).joined(separator: "\n")
}

/// The widest a screen's text is laid out, columns.
let maximumScreenColumns = 80

/// The width of the terminal at file descriptor `descriptor`, at most ``maximumScreenColumns``; nil when it is
/// not a terminal.
func terminalColumns(_ descriptor: Int32) -> Int? {
    guard isatty(descriptor) == 1 else { return nil }
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return maximumScreenColumns }
    return min(maximumScreenColumns, Int(size.ws_col))
}

/// Prints `text` on standard output: on a terminal each line wrapped to its width (at most 80 columns),
/// elsewhere (a pipe, a file) each line whole.
func printWrapped(_ text: String) {
    guard let columns = terminalColumns(1) else { return print(text) }
    print(text.wrapped(toWidth: columns).joined(separator: "\n"))
}

/// Writes "shades: error: `message`" as one line to standard error (file descriptor 2, unbuffered).
func printError(_ message: String) { printToStandardError("shades: error: \(message)\n") }

/// Writes "shades: warning: `message`" as one line to standard error.
func printWarning(_ message: String) { printToStandardError("shades: warning: \(message)\n") }

func printToStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress! + written, $0.count - written) }
        if n <= 0 { return }
        written += n
    }
}

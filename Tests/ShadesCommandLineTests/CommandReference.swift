import Foundation
import ShadesTestSupport

/// The command-line reference, docs/reference.md, made from what the commands say of themselves:
/// `shades --experimental-dump-help` (the JSON from which ArgumentParser's `generate-manual` plugin makes the
/// man pages in docs/man/). Every displayed command with its abstract, discussion, arguments and options.
enum CommandReference {
    /// The repository: three folders above this file (Tests/ShadesCommandLineTests/CommandReference.swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The checked-in reference.
    static let file = repository.appendingPathComponent("docs/reference.md")

    /// The checked-in man pages (`make manual`).
    static let manFolder = repository.appendingPathComponent("docs/man")

    // MARK: The dump

    /// A command as `--experimental-dump-help` describes it (ArgumentParserToolInfo's CommandInfoV0, the
    /// fields used here).
    struct Command: Decodable {
        var commandName: String
        var abstract: String?
        var discussion: String?
        var shouldDisplay: Bool?
        var arguments: [Argument]?
        var subcommands: [Command]?
    }

    /// An argument, option or flag (ArgumentInfoV0).
    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var kind: String
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var discussion: String?
        var defaultValue: String?
        var isOptional: Bool?
        var isRepeating: Bool?
        var shouldDisplay: Bool?

        /// "-o, --output <output>", "--loop", "<source>".
        var label: String {
            let value = valueName.map { "<\($0)>" } ?? ""
            guard kind != "positional", let names, !names.isEmpty else { return value }
            let spelled = names.sorted { $0.kind == "short" && $1.kind != "short" }.map { $0.kind == "short" ? "-\($0.name)" : "--\($0.name)" }.joined(separator: ", ")
            return kind == "option" ? "\(spelled) \(value)" : spelled
        }

        /// The long names ("output"), the short ones ("o").
        var longNames: [String] { (names ?? []).filter { $0.kind != "short" }.map(\.name) }
    }

    private struct Tool: Decodable {
        var command: Command
    }

    /// The root command, from `shades --experimental-dump-help` (the built executable).
    static func dump() throws -> Command {
        let result = try Shell.run(["--experimental-dump-help"], in: NSTemporaryDirectory())
        guard result.status == 0 else {
            throw ReferenceError("shades --experimental-dump-help failed (status \(result.status)): \(result.stderr)")
        }
        return try JSONDecoder().decode(Tool.self, from: Data(result.stdout.utf8)).command
    }

    /// Every displayed command with its path of names ("shades", "stimuli", "audiometry"), depth first, in
    /// the order of the help; ArgumentParser's own `help` command left out.
    static func commands(of root: Command) -> [(path: [String], command: Command)] {
        var all: [(path: [String], command: Command)] = []
        func visit(_ command: Command, _ path: [String]) {
            guard command.shouldDisplay ?? true, !(path.count == 2 && command.commandName == "help") else { return }
            all.append((path, command))
            for sub in command.subcommands ?? [] { visit(sub, path + [sub.commandName]) }
        }
        visit(root, [root.commandName])
        return all
    }

    /// The example commands of a discussion: each line that starts with white space and "shades ", with the
    /// lines it continues onto (a line ending in " \"), as one list of lines each.
    static func examples(in discussion: String) -> [[String]] {
        var examples: [[String]] = []
        var continuing = false
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if continuing {
                examples[examples.count - 1].append(line)
            } else if line.first == " ", line.drop(while: { $0 == " " }).hasPrefix("shades ") {
                examples.append([line])
            } else {
                continue
            }
            continuing = line.hasSuffix(" \\")
        }
        return examples
    }

    // MARK: Markdown

    /// The reference's text.
    static func markdown(_ root: Command) -> String {
        let commands = commands(of: root)
        var text = """
            # Command-line reference

            <!-- Generated from `shades --experimental-dump-help` by Tests/ShadesCommandLineTests/CommandReference.swift
                 (`make manual`, which also writes the man pages in docs/man/); do not edit. -->

            Every command of `shades` with its arguments and options, as `shades COMMAND --help` prints them
            (`-h, --help` on every command shows the same). Man pages: [docs/man/](man/) (`man ./docs/man/shades.1`).

            """
        for (path, command) in commands {
            let name = path.joined(separator: " ")
            text += "\n- [\(name)](#\(anchor(name)))"
            if let abstract = command.abstract, !abstract.isEmpty { text += ": " + inline(abstract) }
        }
        text += "\n"
        for (path, command) in commands {
            text += "\n## \(path.joined(separator: " "))\n"
            if let abstract = command.abstract, !abstract.isEmpty { text += "\n" + inline(abstract) + "\n" }
            if let discussion = command.discussion, !discussion.isEmpty { text += block(discussion) }
            if let subcommands = command.subcommands?.filter({ ($0.shouldDisplay ?? true) && $0.commandName != "help" }),
               !subcommands.isEmpty {
                text += "\nCommands: " + subcommands.map { sub in
                    let name = (path + [sub.commandName]).joined(separator: " ")
                    return "[`\(sub.commandName)`](#\(anchor(name)))"
                }.joined(separator: ", ") + ".\n"
            }
            let arguments = (command.arguments ?? []).filter { argument in
                (argument.shouldDisplay ?? true) && !argument.longNames.contains("help")
                    && !(path.count > 1 && argument.longNames.contains("version"))
            }
            for (heading, kinds) in [("Arguments", ["positional"]), ("Options", ["option", "flag"])] {
                let shown = arguments.filter { kinds.contains($0.kind) }
                guard !shown.isEmpty else { continue }
                text += "\n\(heading):\n\n"
                for argument in shown {
                    var line = "- `\(argument.label)`"
                    if argument.isRepeating == true { line += " (repeatable)" }
                    if let abstract = argument.abstract, !abstract.isEmpty { line += ": " + inline(abstract) }
                    if let discussion = argument.discussion, !discussion.isEmpty { line += " " + inline(discussion) }
                    if let value = argument.defaultValue, !value.isEmpty { line += " Default: `\(value)`." }
                    text += line + "\n"
                }
            }
        }
        return text
    }

    /// GitHub's anchor of a heading: lower case, spaces as hyphens, other punctuation but hyphens dropped.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" ? $0 : nil) })
    }

    /// Help text as Markdown prose: line breaks kept as spaces, `<`, `>` and `*` outside code spans escaped.
    static func inline(_ text: String) -> String {
        var result = "", inCode = false
        for character in text.replacingOccurrences(of: "\n", with: " ") {
            if character == "`" { inCode.toggle() }
            switch (character, inCode) {
            case ("<", false): result += "&lt;"
            case (">", false): result += "&gt;"
            case ("*", false): result += "\\*"
            default: result.append(character)
            }
        }
        return result
    }

    /// A discussion as Markdown: each line of prose a paragraph, the examples (and any other indented lines)
    /// in code blocks as the help prints them.
    static func block(_ discussion: String) -> String {
        var text = "", code: [String] = []
        func flush() {
            guard !code.isEmpty else { return }
            text += "\n```sh\n" + code.joined(separator: "\n") + "\n```\n"
            code = []
        }
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.first == " " {
                code.append(String(line.dropFirst(2)))
            } else {
                flush()
                if !line.isEmpty { text += "\n" + inline(line) + "\n" }
            }
        }
        flush()
        return text
    }
}

struct ReferenceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import Testing
import ShadesTestSupport

/// The command-line reference is what the commands say of themselves: docs/reference.md is exactly the
/// Markdown made from `shades --experimental-dump-help`, and docs/man/ holds a page per command (ArgumentParser's
/// `generate-manual` plugin, `--multi-page`) naming that command's options. `make manual` regenerates both
/// (SHADES_WRITE_REFERENCE=1 writes docs/reference.md instead of checking it). And every example of a help
/// text reads whole on an 80-column terminal.
@Suite struct CommandReferenceTests {
    static let writes = ProcessInfo.processInfo.environment["SHADES_WRITE_REFERENCE"] == "1"

    @Test func theReferenceIsTheCommands() throws {
        let reference = CommandReference.markdown(try CommandReference.dump())
        let file = CommandReference.file
        if Self.writes {
            try reference.write(to: file, atomically: true, encoding: .utf8)
            print("wrote \(file.path)")
            return
        }
        let checkedIn = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard reference != checkedIn else { return }
        let now = reference.split(separator: "\n", omittingEmptySubsequences: false)
        let before = checkedIn.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(now.count, before.count)).first { now[$0] != before[$0] } ?? min(now.count, before.count)
        Issue.record(Comment(rawValue: """
            docs/reference.md differs from what the commands say (`shades --experimental-dump-help`): run \
            `make manual` and commit docs/reference.md and docs/man/ with the change. First difference, line \
            \(line + 1):
            - \(line < before.count ? before[line] : "(end of file)")
            + \(line < now.count ? now[line] : "(end of file)")
            """))
    }

    /// The man pages are checked for what they cover, not byte for byte (the plugin builds the whole package,
    /// too slow for a test): a page per command and no other (`shades.1`, `shades.stimuli.audiometry.1`,
    /// as the plugin names them), each naming its command (`.Nm`) with its abstract (`.Nd`, characters
    /// outside ASCII as mandoc's `\[uXXXX]`, as scripts/manual-pages.sh writes them) and listing exactly the
    /// command's long options and flags (`.It Fl -name`).
    @Test func theManPagesAreTheCommands() throws {
        let root = try CommandReference.dump()
        var expected: [String: (name: String, abstract: String, options: Set<String>)] = [:]
        func visit(_ command: CommandReference.Command, _ path: [String]) {
            let options = (command.arguments ?? []).filter { $0.shouldDisplay ?? true }.flatMap(\.longNames)
            expected[path.joined(separator: ".") + ".1"] = (path.joined(separator: " "), command.abstract ?? "", Set(options))
            for sub in command.subcommands ?? [] { visit(sub, path + [sub.commandName]) }
        }
        visit(root, [root.commandName])

        let folder = CommandReference.manFolder
        let pages = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".1") })
        let hint = "run `make manual` and commit docs/man/ and docs/reference.md"
        #expect(pages == Set(expected.keys), """
            docs/man/ has pages for other commands than `shades` has (\(hint)): missing \
            \(Set(expected.keys).subtracting(pages).sorted()), extra \(pages.subtracting(expected.keys).sorted())
            """)
        for (page, command) in expected.sorted(by: { $0.key < $1.key }) where pages.contains(page) {
            let text = try String(contentsOf: folder.appendingPathComponent(page), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            let name = command.name.contains(" ") ? "\"\(command.name)\"" : command.name
            #expect(lines.contains(".Nm \(name)"), "docs/man/\(page) does not name `\(command.name)` (\(hint))")
            if !command.abstract.isEmpty {
                let abstract = ".Nd " + Self.mdocArgument(command.abstract)
                #expect(lines.contains(abstract), "docs/man/\(page) has not the abstract \(abstract) (\(hint))")
            }
            var listed: Set<String> = []
            for line in lines where line.hasPrefix(".It ") {
                for word in line.split(separator: " ") where word.hasPrefix("-") && word.count > 1 {
                    listed.insert(String(word.dropFirst()))
                }
            }
            #expect(listed == command.options, """
                docs/man/\(page) lists other options than `\(command.name)` has (\(hint)): missing \
                \(command.options.subtracting(listed).sorted()), extra \(listed.subtracting(command.options).sorted())
                """)
        }
    }

    /// `text` as a quoted mdoc macro argument, as generate-manual writes it (`\e`, `\(dq`), with the characters
    /// outside ASCII as scripts/manual-pages.sh spells them (`\[u2026]`).
    static func mdocArgument(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "\"": escaped += "\\(dq"
            case "\n": escaped += " "
            case _ where !scalar.isASCII: escaped += "\\[u" + String(format: "%04X", scalar.value) + "]"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped.contains(" ") || escaped.isEmpty ? "\"\(escaped)\"" : escaped
    }

    /// Each example of a command's help (a discussion line that starts with spaces and "shades ", with the
    /// lines it continues onto after " \") is printed whole, one line of the help each, on an 80-column
    /// terminal, and begins with that command; each `shades …` quoted in a help line closes on that line.
    @Test func helpExamplesAreWholeLinesAt80Columns() throws {
        let commands = CommandReference.commands(of: try CommandReference.dump())
        var checked = 0
        for (path, command) in commands {
            let arguments = Array(path.dropFirst()) + ["--help"]
            let result = try Shell.run(arguments, in: NSTemporaryDirectory(), environment: ["COLUMNS": "80"])
            #expect(result.status == 0, "shades \(arguments.joined(separator: " ")): \(result.stderr)")
            let lines = Set(result.stdout.split(separator: "\n").map(String.init))
            for example in CommandReference.examples(in: command.discussion ?? "") {
                checked += 1
                let start = example[0].drop { $0 == " " }
                let name = path.count == 1 ? "shades " : path.joined(separator: " ") + " "
                #expect(start.hasPrefix(name), "\(path.joined(separator: " ")) --help: an example of another command: \(start)")
                for line in example {
                    #expect(line.count < 80 && lines.contains(line), """
                        \(path.joined(separator: " ")) --help: the example line "\(line)" (\(line.count) characters) is \
                        wrapped at 80 columns: cut it before an option with " \\" (help examples end each line but \
                        the last so; `helpExample` in Sources/shades/TextFormatting.swift does it)
                        """)
                }
            }
            for line in lines {
                var rest = line[...]
                while let open = rest.firstIndex(of: "`") {
                    let quoted = rest[rest.index(after: open)...]
                    guard let close = quoted.firstIndex(of: "`") else {
                        #expect(!quoted.hasPrefix("shades"), """
                            \(path.joined(separator: " ")) --help: `\(quoted) is cut at the end of the line at 80 \
                            columns: reword the help so it fits
                            """)
                        break
                    }
                    rest = quoted[quoted.index(after: close)...]
                }
            }
        }
        #expect(checked > 50, "only \(checked) examples found in the help texts")
    }
}

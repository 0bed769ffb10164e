import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesPlatform

/// Keeps `main` thin: parse, run, and turn every error into one line and an exit code
/// (2 for bad input, 1 for failures while running: ``ShadesError/Kind/exitCode``).
@main
struct Shades: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shades",
        abstract: "Therapeutic sounds for tinnitus research: exact noise colours and tones as WAV/FLAC.",
        discussion: """
            Examples:
              shades render pink --duration 10m --level -20 --seed 7 -o pink.wav
              shades render brown --duration 1h --loop -o brown.wav
              shades render tone --frequency 6kHz --duration 2m --channels left -o t.wav
            """,
        // The kernel set (chosen at run time for this CPU) is named so a report can say what ran.
        version: "\(ShadesVersion.string) (kernels: \(KernelSet.active.rawValue))",
        subcommands: [RenderCommand.self, PlayCommand.self, StimuliCommand.self, NotchCommand.self, NotchFilterCommand.self,
                      MatchCommand.self, AudiometryCommand.self, MeterCommand.self, LoudnessMatchCommand.self, MMLCommand.self, MRILCommand.self,
                      AnalyzeCommand.self, CatalogueCommand.self, StudyCommand.self, RevCorrCommand.self])

    static func main() {
        installInterruptCleanup()
        var parsed: (any ParsableCommand)?
        do {
            var command = try parseAsRoot()
            parsed = command
            try command.run()
        } catch let error as ShadesError {
            // The flags' names are looked up only for an error (building them costs a few milliseconds).
            let flags = parsed.map(ParameterFlags.names(for:)) ?? ParameterFlags.common
            fail(error.described(naming: { flags[$0] }), code: error.kind.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }  // --help, --version
            if let unknown = unknownSubcommand(in: Array(CommandLine.arguments.dropFirst())) { fail(unknown, code: 2) }
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid input"
            fail(message, code: 2)
        }
    }

    /// "command 'rendr' is not a shades command (did you mean 'render'?)" when a word where a command's
    /// subcommand goes names none (ArgumentParser says only "Unexpected argument"); nil when the words name one.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = Shades.self
        var path = ["shades"]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            let names = subcommands.map { $0._commandName } + ["help"]
            guard let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else {
                if word == "help" { return nil }
                // A short word is near every short name: at most an edit per two letters (rendr, plann: yes; x, ab: no).
                let hint = suggestion(for: word, among: names, noun: "commands", maxEdits: min(3, word.count / 2))
                return "command '\(word)' is not a \(path.joined(separator: " ")) command\(hint)"
            }
            command = next
            path.append(word)
        }
        return nil
    }

    static func fail(_ message: String, code: Int32) -> Never {
        printError(message)
        Platform.exit(code)
    }
}

extension ShadesError.Kind {
    /// The command's exit code: 2 for the caller's input (a parameter, a preset), 1 for failures while running.
    var exitCode: Int32 { self == .parameter ? 2 : 1 }
}

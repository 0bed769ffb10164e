import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

/// Keeps `main` thin: parse, run, and turn every error into one line and an exit code
/// (2 for bad input, 1 for failures while running).
@main
struct Shades: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shades",
        abstract: "Therapeutic sounds for tinnitus research: exact noise colours and tones as WAV/FLAC.",
        discussion: """
            Examples:
              shades render pink --duration 10m --channels stereo --level -20 --seed 7 -o pink.wav
              shades render brown --duration 1h --loop -o brown.wav
              shades render tone --frequency 6kHz --duration 2m --channels left -o tone.wav
            """,
        // The kernel set (chosen at run time for this CPU) is named so a report can say what ran.
        version: "\(ShadesVersion.string) (kernels: \(KernelSet.active.rawValue))",
        subcommands: [RenderCommand.self, StimuliCommand.self, NotchCommand.self, AnalyzeCommand.self, CatalogueCommand.self])

    static func main() {
        installInterruptCleanup()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CommandFailure {
            fail(error.message, code: error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }  // --help, --version
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid input"
            fail(message, code: 2)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        printError(message)
        Platform.exit(code)
    }
}

/// An error that ends the command with a one-line message.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32

    static func usage(_ message: String) -> CommandFailure { CommandFailure(message: message, exitCode: 2) }
    static func runtime(_ message: String) -> CommandFailure { CommandFailure(message: message, exitCode: 1) }
}

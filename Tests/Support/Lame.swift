import Foundation

/// The LAME encoder's command-line tool, which makes the MP3 fixtures (`make test` installs it: Debian
/// package `lame`).
public enum Lame {
    /// The `lame` executable on the PATH, or nil.
    public static var executable: String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":")
        return folders.map { "\($0)/lame" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Encodes the WAV at `input` to the MP3 `output` with `options` (e.g. `["-b", "128"]`, `["-V", "4", "-t"]`).
    public static func encode(_ input: String, to output: String, options: [String]) throws {
        guard let executable else {
            throw Failure("lame is not installed: the MP3 tests need it (`make test` installs the Debian package lame)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--quiet"] + options + [input, output]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("lame \(options.joined(separator: " ")) \(input) failed: \(message)")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

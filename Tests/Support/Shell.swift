import Foundation

/// Runs the built `shades` executable, as a user would.
public struct Shell {
    public static var executable: String {
        // The test bundle sits beside the products in the build folder.
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleFolder, bundleFolder.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("shades").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return bundleFolder.appendingPathComponent("shades").path
    }

    /// Runs `shades arguments` in `folder`, with `environment` added to this process's variables.
    public static func run(_ arguments: [String], in folder: String,
                           environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }
}


/// A new empty folder under the temporary directory.
public func temporaryFolder(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "shades-\(name)-\(getpid())-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

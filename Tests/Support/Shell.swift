import Foundation

/// Runs the built `shades` executable, as a user would.
public struct Shell {
    public static var executable: String {
        #if canImport(Darwin)
        // On macOS the suites run inside `xctest` or `swiftpm-testing-helper`, so arguments[0] is not in the
        // build folder; the test bundle's own binary is (…/debug/ShadesPackageTests.xctest/Contents/MacOS/…).
        var image = Dl_info()
        if dladdr(#dsohandle, &image) != 0, let binary = image.dli_fname {
            var folder = URL(fileURLWithPath: String(cString: binary)).deletingLastPathComponent()
            for _ in 0..<4 {
                folder = folder.deletingLastPathComponent()
                let path = folder.appendingPathComponent("shades").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        #endif
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
        try run(program: executable, arguments, in: folder, environment: environment)
    }

    /// Runs the program at `program` (absolute path) with `arguments` in `folder`, as ``run(_:in:environment:)`` runs `shades`.
    public static func run(program: String, _ arguments: [String], in folder: String,
                           environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.executableURL = URL(fileURLWithPath: program)
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


extension Shell {
    /// What a refused command did: its exit status, its stderr, and whether it left its output file.
    public struct Refusal {
        public let status: Int32
        public let stderr: String
        public let leftOutput: Bool
        /// True when it failed with a one-line message containing `message` and left no output.
        public func isOneLine(saying message: String) -> Bool {
            status != 0 && stderr.contains(message) && stderr.split(separator: "\n").count == 1 && !leftOutput
        }
    }

    /// Runs `command` (split at spaces) in a fresh temporary folder, removed afterwards; `output` is the file
    /// it would write.
    public static func refusal(_ command: String, output: String = "x.wav") throws -> Refusal {
        let folder = temporaryFolder("refusal")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(command.split(separator: " ").map(String.init), in: folder)
        return Refusal(status: result.status, stderr: result.stderr, leftOutput: FileManager.default.fileExists(atPath: "\(folder)/\(output)"))
    }
}

/// A new empty folder inside ``testFolders``.
public func temporaryFolder(_ name: String) -> String {
    let path = testFolders + "/\(name)-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The folder that holds this test process's temporary folders, `$TMPDIR/shades-tests-PID`, removed with
/// everything in it when the process exits: the suites make a few thousand folders a run, and left in /tmp
/// they slowed every later listing of it.
public let testFolders: String = {
    let path = testFoldersPath()
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testFoldersPath()) }
    return path
}()

private func testFoldersPath() -> String { NSTemporaryDirectory() + "shades-tests-\(getpid())" }

/// Crash tests: a `shades` child killed with SIGKILL part-way, and what it left behind.
public enum KillRun {
    /// Starts `shades arguments` in `folder` (output discarded), sends SIGKILL after `delay` seconds unless it
    /// has ended, and waits for it (so its process id is gone). Returns whether the kill ended it, and its id.
    public static func run(_ arguments: [String], in folder: String, killAfter delay: Double) throws -> (killed: Bool, pid: Int32) {
        let run = try run(arguments, in: folder, signal: SIGKILL, after: delay)
        return (!run.exited && run.status == SIGKILL, run.pid)
    }

    /// Starts `shades arguments` in `folder` (output discarded), sends `signal` after `delay` seconds unless
    /// it has ended, and waits for it. Returns whether it exited (else a signal ended it), its exit status or
    /// that signal, and its id.
    public static func run(_ arguments: [String], in folder: String, signal: Int32,
                           after delay: Double) throws -> (exited: Bool, status: Int32, pid: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Shell.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        usleep(useconds_t(max(0, delay) * 1_000_000))
        kill(pid, signal)
        process.waitUntilExit()
        return (process.terminationReason == .exit, process.terminationStatus, pid)
    }

    /// Every name in `folder` (hidden ones too), sorted.
    public static func listing(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// The bytes of every file under `folder`, by path relative to it.
    public static func contents(of folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(folder)/\(name)", isDirectory: &isFolder), !isFolder.boolValue {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)"))
            }
        }
        return files
    }

    /// The id of a process that has ended and been reaped (what a killed run's leftovers carry).
    public static func goneProcessID() throws -> Int32 {
        let process = Process()
        #if canImport(Darwin)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/true")   // macOS has no /bin/true
        #else
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        #endif
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// Seconds `body` takes.
    public static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// A small tmpfs mounted for a disk-full test (needs root and mount(8)); unmounted by ``unmount()``.
public struct SmallDisk {
    public let path: String

    /// Whether a tmpfs can be mounted here (tried once).
    public static let canMount: Bool = {
        guard getuid() == 0, let disk = SmallDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }()

    /// Mounts a `megabytes` tmpfs on a new temporary folder, read-only if `readOnly` (a folder even root
    /// cannot write into); nil when that is not allowed.
    public init?(megabytes: Int, readOnly: Bool = false) {
        let folder = temporaryFolder("small-disk")
        let options = "size=\(megabytes)m" + (readOnly ? ",ro" : "")
        guard SmallDisk.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", folder]) else {
            try? FileManager.default.removeItem(atPath: folder)
            return nil
        }
        path = folder
    }

    public func unmount() {
        _ = SmallDisk.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

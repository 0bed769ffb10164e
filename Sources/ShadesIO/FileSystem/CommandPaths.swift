import ShadesDSP
import ShadesPlatform

/// A file or folder a command reads: its path as the user typed it and how the user gave it.
package struct CommandInput: Sendable {
    package var path: String
    /// The option that gives it ("--sound", "--music") or what it is ("the presets folder"); nil for a
    /// command's input file.
    package var name: String?

    package init(_ path: String, name: String? = nil) {
        (self.path, self.name) = (path, name)
    }

    /// "the input song.wav", "--sound rain.json", "the presets folder Presets".
    package var described: String { name.map { "\($0) \(path)" } ?? "the input \(path)" }
}

/// The one check of the paths a command reads and writes, made before any work:
/// - an input is a regular file that can be read and is not empty (``checkReadableFile(_:)``), so a FIFO,
///   device, socket or folder is refused before anything opens it (opening a FIFO for reading waits for a
///   writer for ever);
/// - no input is given twice, by any spelling or link (``checkDistinct(_:)``);
/// - an output is no input, by any spelling, symbolic or hard link (``checkOutput(_:option:inputs:)``); an
///   output folder, replaced whole, neither is nor holds an input, nor lies inside an input folder
///   (``checkOutputFolder(_:option:inputs:)``).
package enum CommandPaths {
    // MARK: Inputs

    /// Refuses `path` unless it names a regular file (or a link to one) that this process can read and that
    /// holds at least one byte: "song.mp3 does not exist", "adir.mp3 is a folder, not a file", "fifo.wav is
    /// a named pipe (FIFO), not a file", "empty.mp3 is empty". Only `stat(2)` and `access(2)`: nothing is
    /// opened, so nothing waits.
    package static func checkReadableFile(_ path: String) throws(ShadesError) {
        guard !path.isEmpty else { throw .usage("an input path is empty (allowed: the path of a file)") }
        let info: stat
        do { info = try FileSystem.status(path) } catch { throw .input(unreachable(path, error)) }
        if let kind = kind(ofMode: info.st_mode) { throw .input("\(path) is \(kind), not a file") }
        guard info.st_size > 0 else { throw .input("\(path) is empty") }
        guard access(path, R_OK) == 0 else {
            throw .input("\(path) cannot be read (\(String(cString: strerror(errno))))")
        }
    }

    /// What a file of `mode` (`st_mode`) is when it is not a regular file: "a folder", "a named pipe
    /// (FIFO)", "a device", "a socket"; nil for a regular file.
    package static func kind(ofMode mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// Why `stat(path)` failed with `error`, naming `path`.
    private static func unreachable(_ path: String, _ error: ShadesError) -> String {
        switch error.code {
        case ENOENT:
            // A link whose target is gone: lstat finds the link itself.
            if (try? FileSystem.linkStatus(path)) != nil { return "\(path) is a link to a file that does not exist" }
            return "\(path) does not exist"
        case ENOTDIR: return "\(path) does not exist (\(FolderCreation.notAFolder(AtomicFile.directory(of: path))))"
        case ELOOP: return "\(path) is a loop of symbolic links"
        default: return "\(path) cannot be reached (\(error.reason))"
        }
    }

    /// Refuses an input given twice, by the same or another spelling or through a link: "the input
    /// ./song.mp3 is also given as song.mp3 (allowed: each file once)".
    package static func checkDistinct(_ inputs: [CommandInput]) throws(ShadesError) {
        let identities = inputs.map { PathIdentity($0.path) }
        for i in inputs.indices {
            if let j = identities[..<i].firstIndex(where: { $0 == identities[i] }) {
                let again = inputs[i].path == inputs[j].path ? "is given twice" : "is also given as \(inputs[j].path)"
                throw .usage("\(inputs[i].described) \(again) (allowed: each file once)")
            }
        }
    }

    // MARK: Outputs

    /// Checks the output file `output` before any work: not empty, not any of `inputs` (the same file by
    /// any spelling, symbolic or hard link), not a folder, and in a folder that exists and is writable
    /// (``AtomicFile/checkWritable(_:)``; a missing one is the caller's error, "-o out/a.wav: folder out does
    /// not exist"), or with `createsFolders` (an output given as a folder) one whose missing folders can be made
    /// (``FolderCreation/missingFolders(for:isFolder:)``). `option` names it as the user gave it ("-o",
    /// "--plot").
    package static func checkOutput(_ output: String, option: String = "-o", inputs: [CommandInput],
                                    createsFolders: Bool = false) throws(ShadesError) {
        try checkNotEmpty(output, option: option)
        let identity = PathIdentity(output)
        if let input = inputs.first(where: { PathIdentity($0.path) == identity }) {
            throw .usage("\(option) \(output) is \(input.described) (allowed: another file; an input is never overwritten)")
        }
        if createsFolders {
            _ = try FolderCreation.missingFolders(for: output)
            return
        }
        // A file's folder must exist (only a folder given as the output is made), and the output is no folder:
        // the caller's path, exit 2.
        let folder = AtomicFile.directory(of: output)
        let isFolder = { (path: String) in (try? FileSystem.status(path)).map { ($0.st_mode & S_IFMT) == S_IFDIR } == true }
        guard isFolder(folder) else {
            throw .usage("\(option) \(output): \(FolderCreation.notAFolder(folder)) (allowed: a file in an existing folder)")
        }
        if isFolder(output) { throw .usage("\(option) \(output) is a folder (allowed: a file in an existing folder)") }
        try AtomicFile.checkWritable(output)
    }

    /// Checks the files `names` a command writes into `folder` (made if missing) as
    /// ``checkOutput(_:option:inputs:createsFolders:)`` does each; `option` names the folder.
    package static func checkOutput(files names: [String], inFolder folder: String, option: String = "-o",
                                    inputs: [CommandInput]) throws(ShadesError) {
        try checkNotEmpty(folder, option: option)
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        for name in names { try checkOutput(base + name, option: option, inputs: inputs, createsFolders: true) }
    }

    /// Checks the output folder `folder` (replaced whole by the command) before any work: not empty, not
    /// any of `inputs`, holding none of them and not inside an input folder, by any spelling or link.
    package static func checkOutputFolder(_ folder: String, option: String = "-o", inputs: [CommandInput]) throws(ShadesError) {
        try checkNotEmpty(folder, option: option)
        let target = PathIdentity(folder), places = spellings(folder)
        for input in inputs {
            let problem: String?
            if PathIdentity(input.path) == target {
                problem = "is \(input.described)"
            } else if spellings(input.path).contains(where: { inside($0, any: places) }) {
                problem = "holds \(input.described)"
            } else if places.contains(where: { inside($0, any: spellings(input.path)) }) {
                problem = "is inside \(input.described)"
            } else {
                problem = nil
            }
            if let problem {
                throw .usage("\(option) \(folder) \(problem) (allowed: a folder apart from every input; the folder is replaced whole)")
            }
        }
    }

    /// Refuses the output folder `folder` (written into, not replaced) when it is, or lies inside, one of the
    /// input folders `folders`, by any spelling or link; `allowed` says what may be given instead.
    package static func checkOutside(_ folder: String, option: String = "-o", folders: [CommandInput], allowed: String) throws(ShadesError) {
        try checkNotEmpty(folder, option: option)
        let target = PathIdentity(folder), places = spellings(folder)
        for input in folders {
            if PathIdentity(input.path) == target {
                throw .usage("\(option) \(folder) is \(input.described) (allowed: \(allowed))")
            }
            if places.contains(where: { inside($0, any: spellings(input.path)) }) {
                throw .usage("\(option) \(folder) is inside \(input.described) (allowed: \(allowed))")
            }
        }
    }

    /// Refuses an output path of no characters, which names nothing.
    private static func checkNotEmpty(_ path: String, option: String) throws(ShadesError) {
        guard !path.isEmpty else { throw .usage("\(option) is an empty path (allowed: the name of a file or folder to write)") }
    }

    /// `path` as absolute paths that may name it: with every link resolved, and with its folder resolved
    /// but its last part kept (a link inside a folder is removed with the folder, whatever it points to).
    private static func spellings(_ path: String) -> [String] {
        let resolved = PathIdentity.canonical(path)
        let name = AtomicFile.fileName(of: path)
        guard !name.isEmpty, name != ".", name != ".." else { return [resolved] }
        let folder = PathIdentity.canonical(AtomicFile.directory(of: path))
        return [resolved, (folder == "/" ? "" : folder) + "/" + name]
    }

    /// True when `path` lies strictly inside one of `folders` (absolute, normalised paths).
    private static func inside(_ path: String, any folders: [String]) -> Bool {
        folders.contains { folder in path.hasPrefix(folder == "/" ? "/" : folder + "/") && path != folder }
    }
}

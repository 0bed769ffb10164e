import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// How ``AtomicFile`` puts a file in place: nothing visible while it is written (O_TMPFILE), or a named
/// temporary that a later write removes once its process is gone; disk full named with the size needed.
@Suite(.serialized) struct AtomicFileTests {
    let folder = temporaryFolder("atomic")

    func listing() throws -> [String] { try KillRun.listing(folder) }

    /// Whether the temporary folder's file system has O_TMPFILE (not overlayfs before Linux 6.6).
    static let hasUnnamedFiles: Bool = {
        guard let descriptor = try? FileSystem.openUnnamed(inFolder: NSTemporaryDirectory()) else { return false }
        FileSystem.close(descriptor)
        return true
    }()

    @Test(.enabled(if: hasUnnamedFiles, "the temporary folder's file system has no O_TMPFILE"))
    func anUnnamedFileIsInvisibleUntilItIsComplete() throws {
        let path = "\(folder)/a.bin"
        var during: [String] = []
        try AtomicFile.write(to: path) { (file: AtomicFile.Temporary) throws(ShadesError) in
            try file.write(Array("new".utf8))
            during = (try? listing()) ?? ["?"]
        }
        #expect(during.isEmpty)
        #expect(try listing() == ["a.bin"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    }

    @Test func theNamedFallbackCarriesItsProcessAndLeavesNothing() throws {
        AtomicFile.usesUnnamedFiles = false
        defer { AtomicFile.usesUnnamedFiles = true }
        let path = "\(folder)/b.bin"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        var during: [String] = []
        try AtomicFile.write(to: path) { (file: AtomicFile.Temporary) throws(ShadesError) in
            try file.write(Array("new".utf8))
            during = (try? listing()) ?? []
        }
        #expect(during.count == 2 && during.contains { $0.hasPrefix(".b.bin.\(getpid())-") && $0.hasSuffix(".tmp") }, "\(during)")
        #expect(try listing() == ["b.bin"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")

        #expect(throws: ShadesError.self) {
            try AtomicFile.write(to: path) { (file: AtomicFile.Temporary) throws(ShadesError) in
                try file.write(Array("partial".utf8))
                throw ShadesError.runtime("simulated failure")
            }
        }
        #expect(try listing() == ["b.bin"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    }

    @Test func aWriteRemovesTheTemporariesOfItsTargetWhoseProcessIsGone() throws {
        let gone = try KillRun.goneProcessID()
        let stale = ".c.wav.\(gone)-1.tmp", live = ".c.wav.1-1.tmp", otherTarget = ".d.wav.\(gone)-1.tmp"
        let lookalike = ".c.wav.\(gone)-x.tmp"
        for name in [stale, live, otherTarget, lookalike] {
            try Data("left by a killed run".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        try AtomicFile.write(Array("new".utf8), to: "\(folder)/c.wav")
        #expect(try listing() == [live, "c.wav", lookalike, otherTarget].sorted())
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root and mount(8) for a 2 MB tmpfs"))
    func aFullDiskIsOneLineWithTheSizeNeededAndLeavesNothing() throws {
        let disk = try #require(SmallDisk(megabytes: 2))
        defer { disk.unmount() }
        let buffer = AudioBuffer(channelCount: 2, frameCapacity: 48_000 * 30)
        var state: UInt32 = 1  // noise, so FLAC cannot compress it away
        for c in 0..<2 {
            buffer.withChannel(c) { x in
                for i in x.indices { state = state &* 1_664_525 &+ 1_013_904_223; x[i] = Float(Int32(bitPattern: state)) / 8e9 }
            }
        }
        for (name, format, expected) in [("x.wav", try AudioFileFormat(container: .wav, sampleFormat: .s16), "needed about 6 MB"),
                                         ("x.flac", try AudioFileFormat(container: .flac, sampleFormat: .s24), "needed up to about 9 MB")] {
            let path = "\(disk.path)/\(name)"
            #expect {
                try FileSink.write(buffer, sampleRate: 48_000, gains: [1, 1], to: path, sampleFormat: format.sampleFormat, ditherKey: 1, comment: nil)
            } throws: { error in
                "\(error)" == "cannot write \(path): no space left on device (\(expected))"
            }
            #expect(try KillRun.listing(disk.path).isEmpty)
        }
        #expect(throws: ShadesError.runtime("cannot write \(disk.path)/big.bin: no space left on device (needed about 3 MB)")) {
            try AtomicFile.write([UInt8](repeating: 1, count: 3_000_000), to: "\(disk.path)/big.bin")
        }
        #expect(try KillRun.listing(disk.path).isEmpty)
    }
}

/// Folder problems are named as the user sees them: the path they gave, the real reason, never a
/// temporary name nor "cannot create" a folder that exists.
extension AtomicFileTests {
    /// The message of the error `body` throws, or "no error".
    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return (error as? ShadesError)?.description ?? "not a ShadesError: \(error)" }
        return "no error"
    }

    @Test func aFileWhereAFolderShouldBeIsCalledAFile() throws {
        let file = "\(folder)/p5.wav"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for target in ["\(file)/x.wav", "\(file)/sub/x.wav"] {
            let expected = "cannot write \(target): \(file) is a file, not a folder"
            #expect(message { try AtomicFile.checkWritable(target) } == expected)
            #expect(message { _ = try FolderCreation.missingFolders(for: target) } == expected)
            #expect(message { try AtomicFile.write(Array("x".utf8), to: target) } == expected)
        }
        #expect(message { _ = try FolderCreation.create(["\(file)/sub"]) } == "cannot create folder \(file)/sub: \(file) is a file, not a folder")
        #expect(message { try AtomicFile.checkWritable("\(folder)/none/x.wav") } == "cannot write \(folder)/none/x.wav: folder \(folder)/none does not exist")
        #expect(try FolderCreation.missingFolders(for: "\(folder)/new/deeper/x.wav") == ["\(folder)/new", "\(folder)/new/deeper"])
    }

    /// A folder that exists but is not writable: read-only for everyone on a read-only tmpfs (root), or by
    /// its mode for anyone else.
    @Test(.enabled(if: getuid() != 0 || SmallDisk.canMount, "root needs mount(8) for a read-only tmpfs"))
    func aReadOnlyFolderIsCalledNotWritable() throws {
        let disk = getuid() == 0 ? SmallDisk(megabytes: 1, readOnly: true) : nil
        defer { disk?.unmount() }
        let ro = disk?.path ?? "\(folder)/ro"
        if disk == nil {
            try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: false)
            chmod(ro, 0o555)
        }
        defer { if disk == nil { chmod(ro, 0o755) } }
        let notWritable = "folder \(ro) is not writable"
        #expect(message { try AtomicFile.checkWritable("\(ro)/x.wav") }.hasPrefix("cannot write \(ro)/x.wav: \(notWritable)"))
        #expect(message { _ = try FolderCreation.missingFolders(for: "\(ro)/x.wav") }.hasPrefix("cannot write \(ro)/x.wav: \(notWritable)"))
        #expect(message { _ = try FolderCreation.missingFolders(for: "\(ro)/sub/x.wav") }
            .hasPrefix("cannot create folder \(ro)/sub for \(ro)/sub/x.wav: \(notWritable)"))
        #expect(message { _ = try FolderCreation.create(["\(ro)/sub"]) }.hasPrefix("cannot create folder \(ro)/sub: \(notWritable)"))
        defer { AtomicFile.usesUnnamedFiles = true }
        for unnamed in [true, false] {
            AtomicFile.usesUnnamedFiles = unnamed
            let written = message { try AtomicFile.write(Array("x".utf8), to: "\(ro)/x.wav") }
            #expect(written.hasPrefix("cannot write \(ro)/x.wav: \(notWritable)") && !written.contains(".tmp"), "\(written)")
        }
        if disk != nil { #expect(message { try AtomicFile.checkWritable("\(ro)/x.wav") }.hasSuffix("(Read-only file system)")) }
    }
}

import Testing
import Foundation
import ShadesTestSupport

/// `catalogue build`, `notch` and `stimuli` interrupted by SIGINT, SIGTERM and SIGHUP at random points
/// leave the folder exactly as it was (the previous output, nothing else: no building, staging or created
/// folder, no temporary file) or, when the signal came after the output was put in place, as the complete
/// run leaves it; exit status 128 + the signal. (SIGKILL: KillTests, CatalogueKillTests.)
@Suite(.serialized) struct InterruptTests {
    let folder = temporaryFolder("interrupt")

    /// Every file's bytes and every folder (nil) under `folder`, hidden ones included, by relative path.
    static func snapshot(_ folder: String) throws -> [String: Data?] {
        var entries: [String: Data?] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(folder)/\(name)", isDirectory: &isFolder)
            entries[name] = isFolder.boolValue ? Data?.none : try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        return entries
    }

    /// Makes `folder` hold exactly `snapshot`.
    static func restore(_ snapshot: [String: Data?], in folder: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.removeItem(atPath: "\(folder)/\(name)")
        }
        for (name, data) in snapshot.sorted(by: { $0.key < $1.key }) {
            let path = "\(folder)/\(name)"
            if let data {
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try data.write(to: URL(fileURLWithPath: path))
            } else {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
        }
    }

    /// Runs `arguments` to the end once (the new state, and how long a run takes), then interrupts it with
    /// each signal `runs` times at random points over that time.
    func interruptRepeatedly(_ arguments: [String], runs: Int = 3) throws {
        let old = try Self.snapshot(folder)
        var status: Int32 = -1
        let fullRun = try KillRun.seconds { status = try Shell.run(arguments, in: folder).status }
        #expect(status == 0)
        let new = try Self.snapshot(folder)
        try Self.restore(old, in: folder)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var interrupted = 0, attempts = 0
            var span = 1.1 * fullRun
            while interrupted < runs && attempts < 4 * runs {
                attempts += 1
                let delay = Double.random(in: 0...span)
                let (exited, status, _) = try KillRun.run(arguments, in: folder, signal: signal, after: delay)
                let state = try Self.snapshot(folder)
                let what = "\(arguments.prefix(2).joined(separator: " ")) with signal \(signal) after \(delay) s"
                switch (exited, status) {
                case (true, 128 + signal):
                    interrupted += 1
                    #expect(state == old || state == new,
                            "\(what): left \(Set(state.keys).symmetricDifference(old.keys).sorted())")
                case (true, 0):   // it ended first
                    #expect(state == new, "\(what): ended, yet not with the complete output")
                    span = max(0.01, 0.8 * min(span, delay))
                case (false, signal):   // before its handler was installed: nothing was made yet
                    #expect(state == old, "\(what): killed at start-up, yet it left \(Set(state.keys).symmetricDifference(old.keys).sorted())")
                default:
                    Issue.record("\(what): exit \(status) (\(exited ? "exited" : "signalled"))")
                }
                if state != old { try Self.restore(old, in: folder) }
            }
            #expect(interrupted >= runs, "only \(interrupted) of \(attempts) runs were interrupted before they ended (a run took \(fullRun) s)")
        }
        try Self.restore(old, in: folder)
    }

    /// A previous catalogue in `out`: an interrupted build leaves it, and no `.out.build-…` or `.out.old-…`.
    @Test func anInterruptedCatalogueBuildLeavesThePreviousCatalogueOnly() throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/p", withIntermediateDirectories: true)
        let sounds = ["pink", "brown"].map { colour in
            #"{ "id": "\#(colour)", "titles": { "en": "\#(colour)", "de": "\#(colour)" }, "sound": { "seed": 3, "layers": [ { "source": "\#(colour)" } ] } }"#
        }
        let presets = #"{ "defaults": { "lengthSeconds": 6 }, "categories": [ { "id": "noise", "titles": { "en": "Noise", "de": "Rauschen" }, "sounds": [ "#
            + sounds.joined(separator: ", ") + " ] } ] }"
        try presets.write(toFile: "\(folder)/p/p.json", atomically: false, encoding: .utf8)
        #expect(try Shell.run(["catalogue", "build", "p", "-o", "out", "--loudness", "-30"], in: folder).status == 0)
        try interruptRepeatedly(["catalogue", "build", "p", "-o", "out"])
    }

    /// `notch … -o nd/sub/` creates nd and nd/sub: an interrupted run leaves neither.
    @Test func anInterruptedNotchLeavesNoFolderItCreated() throws {
        #expect(try Shell.run(["render", "pink", "--duration", "2m", "-o", "music.wav"], in: folder).status == 0)
        try interruptRepeatedly(["notch", "music.wav", "--frequency", "4kHz", "-o", "nd/sub/"])
    }

    /// A stimulus set into a folder that does not exist yet: an interrupted run leaves no staging folder
    /// and no folder it created, or the whole set.
    @Test func anInterruptedStimulusSetLeavesNoStagingFolder() throws {
        try interruptRepeatedly(["stimuli", "audiometry", "--ear", "both", "-o", "new/set"])
    }
}

import Testing
import Foundation
import ShadesCatalogue
import ShadesTestSupport

/// `shades catalogue build` killed with SIGKILL at random points, builds racing for one folder, and what
/// the next build does with a killed one's folders.
@Suite(.serialized) struct CatalogueKillTests {
    let folder = temporaryFolder("catalogue-kill")

    /// Presets of three `seconds`-long sounds; `seed` makes them differ from another set's.
    func writePresets(_ name: String, seconds: Double, seed: Int) throws {
        let sounds = ["pink", "brown", "white"].map { colour in
            #"{ "id": "\#(colour)", "titles": { "en": "\#(colour)", "de": "\#(colour)" }, "sound": { "seed": \#(seed), "layers": [ { "source": "\#(colour)" } ] } }"#
        }
        let text = #"{ "defaults": { "lengthSeconds": \#(seconds) }, "categories": [ { "id": "noise", "titles": { "en": "Noise", "de": "Rauschen" }, "sounds": [ "#
            + sounds.joined(separator: ", ") + " ] } ] }"
        try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        try text.write(toFile: "\(folder)/\(name)/p.json", atomically: false, encoding: .utf8)
    }

    /// Puts exactly `files` (relative path → bytes) in `out`.
    func restore(_ files: [String: Data], into out: String) throws {
        try? FileManager.default.removeItem(atPath: out)
        for (name, data) in files {
            let url = URL(fileURLWithPath: "\(out)/\(name)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    @Test func aKilledBuildKeepsThePreviousCatalogueAndTheNextBuildSweepsItsFolder() throws {
        try writePresets("old", seconds: 2, seed: 1)
        try writePresets("new", seconds: 5, seed: 2)
        let build = ["catalogue", "build", "new", "-o", "out"], out = "\(folder)/out"
        #expect(try Shell.run(build, in: folder).status == 0)
        let new = try KillRun.contents(of: out)
        #expect(try Shell.run(["catalogue", "build", "old", "-o", "out"], in: folder).status == 0)
        let old = try KillRun.contents(of: out)
        let listing = try KillRun.listing(folder)
        var status: Int32 = -1
        let fullRun = try KillRun.seconds { status = try Shell.run(build, in: folder).status }
        #expect(status == 0)
        try restore(old, into: out)

        var killed = 0, attempts = 0
        while killed < 20 && attempts < 60 {
            attempts += 1
            let delay = Double.random(in: 0...(1.1 * fullRun))
            let run = try KillRun.run(build, in: folder, killAfter: delay)
            let files = try KillRun.contents(of: out)
            #expect(files == old || files == new, "killed after \(delay) s: out is neither the old nor the new catalogue")
            // Only the killed build's own folders are left, and the next build removes them.
            let left = Set(try KillRun.listing(folder)).subtracting(listing)
            #expect(left.allSatisfy { $0.hasPrefix(".out.build-\(run.pid)-") || $0.hasPrefix(".out.old-\(run.pid)-") },
                    "killed after \(delay) s: \(left)")
            try CatalogueBuilder.removeStaleFolders(of: out)
            #expect(try KillRun.listing(folder) == listing, "killed after \(delay) s")
            if run.killed { killed += 1 }
            if files != old { try restore(old, into: out) }
        }
        #expect(killed >= 20, "only \(killed) of \(attempts) builds were killed before they ended (a build takes \(fullRun) s)")
        let check = try Shell.run(["catalogue", "check", "out"], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test func aSecondBuildIntoTheSameFolderIsRefusedWhileTheFirstRuns() throws {
        try writePresets("a", seconds: 8, seed: 1)
        try writePresets("b", seconds: 2, seed: 2)
        let first = Process()
        first.executableURL = URL(fileURLWithPath: Shell.executable)
        first.arguments = ["catalogue", "build", "a", "-o", "out"]
        first.currentDirectoryURL = URL(fileURLWithPath: folder)
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        // Wait for the first build's folder, then start the second.
        let marker = ".out.build-\(first.processIdentifier)-1"
        for _ in 0..<2_000 where !FileManager.default.fileExists(atPath: "\(folder)/\(marker)") { usleep(1_000) }
        let second = try Shell.run(["catalogue", "build", "b", "-o", "out"], in: folder)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.status == 1)
        #expect(second.stderr == "shades: error: cannot build into out: another build (process \(first.processIdentifier)) is writing it (allowed: one build per folder at a time)\n")
        let check = try Shell.run(["catalogue", "check", "out"], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try Manifest.read(folder: "\(folder)/out").parameters["presets"] == "a")
        #expect(try KillRun.listing(folder) == ["a", "b", "out"])
    }

    @Test func aBuildKilledBetweenItsTwoRenamesGetsThePreviousCatalogueBack() throws {
        // Where there is no atomic exchange, the previous catalogue is renamed aside first; a build killed
        // right then leaves no `out`, and the next build renames the previous one back.
        try writePresets("old", seconds: 2, seed: 1)
        #expect(try Shell.run(["catalogue", "build", "old", "-o", "out"], in: folder).status == 0)
        let old = try KillRun.contents(of: "\(folder)/out")
        let gone = try KillRun.goneProcessID()
        try FileManager.default.moveItem(atPath: "\(folder)/out", toPath: "\(folder)/.out.old-\(gone)-1")
        try FileManager.default.createDirectory(atPath: "\(folder)/.out.build-\(gone)-1/spectra", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(folder)/.out.build-1-1", withIntermediateDirectories: true)  // live: kept
        #expect(try CatalogueBuilder.removeStaleFolders(of: "\(folder)/out") == [1])
        #expect(try KillRun.contents(of: "\(folder)/out") == old)
        #expect(try KillRun.listing(folder) == [".out.build-1-1", "old", "out"])
    }
}

import Testing
import Foundation
import ShadesIO
import ShadesTestSupport

/// `shades render` and `shades notch` killed with SIGKILL at random points (what the OOM killer or a power
/// cut does to the process): the folder lists exactly what it listed before, and the previous output is
/// byte-identical (or, for a kill after the rename, the complete new output). Ctrl-C: exit 130, same result.
@Suite(.serialized) struct KillTests {
    let folder = temporaryFolder("kill")

    /// Runs `arguments` to the end once (the new output, and how long a run takes), then kills it `kills`
    /// times at random points over that time; `output` holds `previous` before each kill.
    func killRepeatedly(_ arguments: [String], output: String, previous: [String], kills: Int = 20) throws {
        let path = "\(folder)/\(output)"
        var status: Int32 = -1
        let fullRun = try KillRun.seconds { status = try Shell.run(arguments, in: folder).status }
        #expect(status == 0)
        let new = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try Shell.run(previous, in: folder).status == 0)
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        let listing = try KillRun.listing(folder)
        // With O_TMPFILE a killed run leaves nothing (but in the microseconds between link and rename);
        // without it (e.g. overlayfs before Linux 6.6) it leaves its named temporary for the next write.
        var unnamed = false
        if let probe = try? FileSystem.openUnnamed(inFolder: folder) {
            FileSystem.close(probe)
            unnamed = true
        }
        var killed = 0, attempts = 0, leftovers = 0
        // Kills land at random over the run's time. A run that ended before its kill was faster than that
        // first timing (which a busy machine can stretch several times): the span then shrinks.
        var span = 1.1 * fullRun
        while killed < kills && attempts < 3 * kills {
            attempts += 1
            let delay = Double.random(in: 0...span)
            let run = try KillRun.run(arguments, in: folder, killAfter: delay)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let left = Set(try KillRun.listing(folder)).subtracting(listing)
            #expect(left.allSatisfy { $0.hasPrefix(".\(output).\(run.pid)-") && $0.hasSuffix(".tmp") },
                    "\(arguments[0]) killed after \(delay) s (process \(run.pid)) left \(left)")
            leftovers += left.count
            AtomicFile.removeStaleTemporaries(of: path)
            #expect(try KillRun.listing(folder) == listing, "\(arguments[0]) killed after \(delay) s (process \(run.pid))")
            #expect(bytes == old || bytes == new, "\(arguments[0]) killed after \(delay) s: \(output) is neither the old nor the new file")
            if run.killed { killed += 1 } else { span = max(0.01, 0.8 * min(span, delay)) }
            if bytes != old { try old.write(to: URL(fileURLWithPath: path)) }
        }
        #expect(killed >= kills, "only \(killed) of \(attempts) runs were killed before they ended (a run took \(fullRun) s; kills within \(span) s at the end)")
        if unnamed { #expect(leftovers <= 1, "\(leftovers) killed runs left a temporary despite O_TMPFILE") }
    }

    @Test func aKilledRenderLeavesNothingAndTheOldFileUntouched() throws {
        // An hour of mono 8 kHz (58 MB, about 0.3 s here) so random kills land in every phase, the final
        // fsync, link and rename included.
        try killRepeatedly(["render", "pink", "--duration", "1h", "--rate", "8000", "--channels", "mono", "-o", "good.wav"],
                           output: "good.wav", previous: ["render", "brown", "--duration", "1s", "-o", "good.wav"])
    }

    @Test func aKilledNotchLeavesNothingAndTheOldFileUntouched() throws {
        #expect(try Shell.run(["render", "pink", "--duration", "2m", "-o", "music.wav"], in: folder).status == 0)
        try killRepeatedly(["notch", "music.wav", "--frequency", "4kHz", "-o", "notched.wav"],
                           output: "notched.wav", previous: ["render", "white", "--duration", "1s", "-o", "notched.wav"])
    }

    @Test func ctrlCExits130AndLeavesNothing() throws {
        #expect(try Shell.run(["render", "white", "--duration", "1s", "-o", "keep.wav"], in: folder).status == 0)
        let old = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/keep.wav"))
        let listing = try KillRun.listing(folder)
        for delay in [0.05, 0.15] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Shell.executable)
            process.arguments = ["render", "pink", "--duration", "1h", "-o", "keep.wav"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(delay * 1_000_000))
            process.interrupt()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 130)
            #expect(try KillRun.listing(folder) == listing)
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/keep.wav")) == old)
        }
    }
}

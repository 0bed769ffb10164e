import Foundation
import ShadesTestSupport

// The live tests' harness: a PulseAudio server (started by scripts/live-tests.sh), a recorder on its null
// sink's monitor, the player, float WAV files, and the comparison of a capture with a file render.

/// The headless server the tests play into, when one is reachable.
enum LiveServer {
    static let environment = ProcessInfo.processInfo.environment
    /// The null sink (`PULSE_SINK`, exported by scripts/headless-pulse.sh).
    static let sink = environment["PULSE_SINK"] ?? ""

    /// Whether `PULSE_SINK` and `XDG_RUNTIME_DIR` are set and `pactl info` reaches the server (asked once).
    static let isReachable: Bool = {
        guard !sink.isEmpty, environment["XDG_RUNTIME_DIR"] != nil else { return false }
        return (try? run("/usr/bin/pactl", ["info"]).status) == 0
    }()

    static let skipMessage = "no PulseAudio server: PULSE_SINK and XDG_RUNTIME_DIR unset or pactl info failed; "
        + "run `make test-live` (scripts/live-tests.sh starts a headless server and exports its environment)"

    /// Runs `tool arguments` to the end, output discarded; its exit status.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, seconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

// MARK: - Child processes

/// A child process started as a shell would start it: no blocked signals, default dispositions. (Foundation's
/// `Process` hands on the test runner thread's blocked mask, and `parecord` then never sees its SIGINT.)
/// Output goes to /dev/null; `folder` is its working directory.
final class Child: @unchecked Sendable {
    let pid: pid_t
    private var status: Int32?

    init(_ tool: String, _ arguments: [String], in folder: String = "/") throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // sh changes folder, then execs the tool in its place (same process id).
        let argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder, tool] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &cArguments, environ)
        guard result == 0 else { throw LiveError("cannot start \(tool): error \(result)") }
        self.pid = pid
    }

    func signal(_ signal: Int32) { if status == nil { kill(pid, signal) } }

    /// Waits for the end; the exit status (128 + signal when killed by one).
    @discardableResult
    func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let result = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + raw & 0x7f
        status = result
        return result
    }

    /// Whether it exited by itself with `exit()` (not by a signal).
    var exitedNormally: Bool { status.map { $0 < 128 } ?? false }
}

/// Frames per second of everything here (the null sink's rate).
let liveRate = 48_000

// MARK: - The player

/// Until `shades play` is on this branch, a stand-in plays a file render of the same sound with `paplay`
/// (everything but the player itself is then proven). Switching to the real player is this one line.
let playerIsStandIn = false

/// A running player.
struct Player {
    let process: Child
    let reportPath: String?

    /// Starts `shades play arguments` in `folder` (SOUND first, then options, as a user types them).
    static func start(_ arguments: [String], in folder: String) throws -> Player {
        if playerIsStandIn {
            return Player(process: try Child("/usr/bin/paplay", [try renderStandIn(arguments, in: folder)], in: folder),
                          reportPath: nil)
        }
        let report = arguments.firstIndex(of: "--report").map { "\(folder)/\(arguments[$0 + 1])" }
        return Player(process: try Child(Shell.executable, ["play"] + arguments, in: folder), reportPath: report)
    }

    /// Plays to the end; the exit status.
    static func play(_ arguments: [String], in folder: String) throws -> Int32 {
        try start(arguments, in: folder).process.wait()
    }

    /// `shades play`'s options mapped onto `shades render … --format f32` (the timer becomes the duration; no
    /// timer plays 30 s), rendered to a file for `paplay`.
    static func renderStandIn(_ arguments: [String], in folder: String) throws -> String {
        var render = ["render"], duration = "30s", index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--timer": duration = arguments[index + 1]; index += 2
            case "--report", "--buffer", "--device": index += 2
            case "--quiet": index += 1
            default: render.append(argument); index += 1
            }
        }
        let file = "\(folder)/stand-in-\(UUID().uuidString).wav"
        render += ["--duration", duration, "--format", "f32", "-o", file]
        let result = try Shell.run(render, in: folder)
        guard result.status == 0 else { throw LiveError("stand-in render failed: \(render) \(result.stderr)") }
        return file
    }
}

/// What `shades play --report FILE.json` writes.
struct PlayReport: Decodable {
    let frames: Int
    let underruns: Int
    /// Callbacks a music file's reader was behind (filled with silence); 0 for a generated sound.
    let readerUnderruns: Int
    let latencySeconds: Double
    let bufferFrames: Int
    let sampleRate: Double
    /// Whether the callback ran with real-time scheduling.
    let realtime: Bool?
    /// The notch's delay (how far ahead of its output a notched file is read), seconds.
    let notchDelaySeconds: Double?
    /// The longest callback's render, seconds.
    let longestCallbackSeconds: Double?
}

struct LiveError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The recorder

/// `parecord` on the null sink's monitor, float32 48 kHz stereo into a WAV file.
final class Recorder {
    let process: Child
    let path: String

    /// Starts recording and returns once the file has grown past its header (the recorder can take up to
    /// about a second to deliver its first data).
    init(path: String) throws {
        self.path = path
        process = try Child("/usr/bin/parecord", ["-d", "\(LiveServer.sink).monitor", "--format=float32le",
                                                  "--rate=\(liveRate)", "--channels=2", "--file-format=wav", path])
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if size > 8192 { return }
            usleep(10_000)
        }
        process.signal(SIGKILL)
        process.wait()
        throw LiveError("parecord wrote no audio within 5 s")
    }

    /// Waits `tail` seconds (the recorder lags behind the sink), stops it (SIGINT: it completes the file),
    /// and reads the capture.
    func stop(after tail: Double = 0.6) throws -> [[Float]] {
        usleep(useconds_t(tail * 1e6))
        process.signal(SIGINT)
        process.wait()
        return try FloatWAV.read(path)
    }
}

/// A busy loop in a child process (`sh -c 'while :; do :; done'`), to keep a core busy while playing.
final class BusyLoop {
    let process: Child
    init() throws { process = try Child("/bin/sh", ["-c", "while :; do :; done"]) }
    func stop() {
        process.signal(SIGKILL)
        process.wait()
    }
}

// MARK: - Float WAV files

enum FloatWAV {
    /// The channels of a 32-bit float WAV (`WAVE_FORMAT_IEEE_FLOAT` or extensible); a data chunk whose size
    /// field is unset (0 or 0xFFFFFFFF, a recorder stopped hard) runs to the end of the file.
    static func read(_ path: String) throws -> [[Float]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        func u32(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        guard data.count >= 12, String(decoding: data[0..<4], as: UTF8.self) == "RIFF" else { throw LiveError("\(path): not a WAV") }
        var at = 12, channels = 0, bits = 0
        while at + 8 <= data.count {
            let id = String(decoding: data[at..<at + 4], as: UTF8.self)
            var size = u32(at + 4)
            if id == "fmt " {
                channels = u16(at + 10); bits = u16(at + 22)
                let format = u16(at + 8)
                guard bits == 32, format == 3 || format == 0xFFFE else { throw LiveError("\(path): format \(format), \(bits) bits, not float32") }
            } else if id == "data" {
                guard channels > 0 else { throw LiveError("\(path): data before fmt") }
                if size == 0 || size == 0xFFFF_FFFF || at + 8 + size > data.count { size = data.count - at - 8 }
                let frames = size / (4 * channels)
                var result = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
                data.withUnsafeBytes { raw in
                    let base = raw.baseAddress!.advanced(by: at + 8)
                    for frame in 0..<frames {
                        for channel in 0..<channels {
                            result[channel][frame] = base.loadUnaligned(fromByteOffset: 4 * (frame * channels + channel), as: Float.self)
                        }
                    }
                }
                return result
            }
            at += 8 + size + (size & 1)
        }
        throw LiveError("\(path): no data chunk")
    }

    /// Writes `channels` (equal lengths) as a 32-bit float WAV at `rate`.
    static func write(_ channels: [[Float]], rate: Int = liveRate, to path: String) throws {
        let frames = channels[0].count, count = channels.count
        var data = Data()
        func put32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func put16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); put32(36 + 4 * frames * count)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); put32(16); put16(3); put16(count)
        put32(rate); put32(rate * 4 * count); put16(4 * count); put16(32)
        data.append(contentsOf: Array("data".utf8)); put32(4 * frames * count)
        var samples = [Float](repeating: 0, count: frames * count)
        for frame in 0..<frames { for channel in 0..<count { samples[frame * count + channel] = channels[channel][frame] } }
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }
}

// MARK: - Comparing a capture with its reference

enum Compare {
    /// The frame of `capture` where `reference` starts: the lag (0 ..< `maxLag`) that maximises the
    /// cross-correlation of a 100 ms stretch of the reference taken `templateStart` frames in, with the
    /// normalised correlation there (1 for an exact copy). Noise pins the lag to one frame; a tone cannot.
    static func offset(of reference: [Float], in capture: [Float], templateStart: Int = liveRate / 2,
                       templateFrames: Int = liveRate / 10, maxLag: Int = 5 * liveRate) -> (frame: Int, correlation: Double) {
        let lags = min(maxLag, capture.count - templateStart - templateFrames)
        guard lags > 0 else { return (0, 0) }
        var best = 0, bestValue = -Double.infinity
        reference.withUnsafeBufferPointer { r in
            capture.withUnsafeBufferPointer { c in
                let t = r.baseAddress! + templateStart
                for lag in 0..<lags {
                    let s = c.baseAddress! + templateStart + lag
                    var sum: Float = 0
                    for i in 0..<templateFrames { sum += t[i] * s[i] }
                    if Double(sum) > bestValue { bestValue = Double(sum); best = lag }
                }
            }
        }
        var rr = 0.0, cc = 0.0, rc = 0.0
        for i in templateStart..<(templateStart + templateFrames) {
            let r = Double(reference[i]), c = Double(capture[best + i])
            rr += r * r; cc += c * c; rc += r * c
        }
        return (best, rc / max(sqrt(rr * cc), 1e-30))
    }

    /// The least-squares gain of `capture[offset + frames]` against `reference[frames]`.
    static func gain(_ capture: [Float], _ reference: [Float], offset: Int, frames: Range<Int>) -> Double {
        var rc = 0.0, rr = 0.0
        for i in frames { let r = Double(reference[i]); rc += r * Double(capture[offset + i]); rr += r * r }
        return rc / max(rr, 1e-30)
    }

    /// Per `blockFrames` block of `frames` (reference frames): the energy left after subtracting `gain` ×
    /// reference from the aligned capture, in dB relative to the reference's energy (−∞ for an exact copy;
    /// a dropout, an inserted gap or a slip shows as a block near 0 dB or above).
    static func residualsDB(_ capture: [Float], _ reference: [Float], offset: Int, frames: Range<Int>,
                            gain: Double, blockFrames: Int = liveRate / 100) -> [Double] {
        var result: [Double] = []
        var start = frames.lowerBound
        while start + blockFrames <= frames.upperBound {
            var residual = 0.0, energy = 0.0
            for i in start..<(start + blockFrames) {
                let r = Double(reference[i]), d = Double(capture[offset + i]) - gain * r
                residual += d * d; energy += r * r
            }
            result.append(10 * log10(max(residual, 1e-30) / max(energy, 1e-30)))
            start += blockFrames
        }
        return result
    }

    /// Per block of `blockFrames`: the least-squares gain of the capture against the reference (an envelope
    /// applied by the player shows here), with each block's middle frame.
    static func envelope(_ capture: [Float], _ reference: [Float], offset: Int, frames: Range<Int>,
                         blockFrames: Int = liveRate / 100) -> [(frame: Int, gain: Double)] {
        var result: [(Int, Double)] = []
        var start = frames.lowerBound
        while start + blockFrames <= frames.upperBound {
            result.append((start + blockFrames / 2, gain(capture, reference, offset: offset, frames: start..<(start + blockFrames))))
            start += blockFrames
        }
        return result
    }

    /// The index of the last sample that is not exactly zero in any channel (the null sink's silence is 0).
    static func lastSound(_ channels: [[Float]]) -> Int? {
        channels.compactMap { $0.lastIndex { $0 != 0 } }.max()
    }

    /// The index of the first sample that is not exactly zero in any channel.
    static func firstSound(_ channels: [[Float]]) -> Int? {
        channels.compactMap { $0.firstIndex { $0 != 0 } }.min()
    }
}

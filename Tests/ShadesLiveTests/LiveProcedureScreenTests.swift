import Testing
import Foundation
import ShadesDSP
import ShadesProcedures
import ShadesTestSupport

/// The interactive procedures (`match`, `audiometry`, `mml`, `mril`, `loudness-match`) in a terminal of 80×24 (issue 30):
/// each runs in a tmux session of its own, its tones played into the headless PulseAudio's null sink, keys sent
/// as a user types them, among them keys pressed early (while a pair plays, in audiometry's pause, before a
/// question). Every screen is read with `tmux capture-pane` and must have no line longer than 80 columns (a
/// wrapped line is joined back), no status line with stale fragments, and the early keys must answer nothing:
/// the result file is the one the procedure's state machine gives for the answers sent after each question.
/// In `LivePlaybackTests`: one sink, so one test at a time.
extension LivePlaybackTests {
    @Test func matchAtEightyColumnsDropsAKeyPressedDuringThePair() throws {
        let screen = try Terminal(["match", "--seed", "3", "-o", "match.json"], in: folder)
        defer { screen.stop() }
        let patterns = [#"pair \d+: now playing tone [12]"#,
                        #"pair \d+: which was closer to your tinnitus, 1 or 2\? \(r: again, q: stop\)"#,
                        #"\d+ Hz tone, [+-]\d+ dB: up/down until as loud as your tinnitus, enter: done"#]
        var answered: String?, pressedEarly = false
        while true {
            let lines = try screen.waitForStatus(changedFrom: answered, timeout: 20)
            try screen.check(lines, statusPatterns: patterns)
            let status = lines.last ?? ""
            if status.hasPrefix(Terminal.exitLine) { break }
            if status == "pair 1: now playing tone 1" && !pressedEarly {
                // Pressed while tone 1 plays: the pair must still wait for its answer.
                screen.send("2")
                pressedEarly = true
                let after = try screen.waitForStatus { $0 != status && $0 != "pair 1: now playing tone 2" }
                #expect(after.last == "pair 1: which was closer to your tinnitus, 1 or 2? (r: again, q: stop)", "\(after)")
                continue
            }
            if status.hasSuffix("enter: done") {
                screen.send("Enter")
                answered = status
            } else if status.hasSuffix("(r: again, q: stop)") {
                screen.send("1")
                answered = status
            } else {
                answered = nil
                usleep(50_000)
            }
        }
        let final = try screen.finalScreen(statusPatterns: patterns)
        #expect(pressedEarly)
        #expect(!final.contains { $0.contains("now playing") || $0.contains("which was closer") || $0.contains("enter: done") },
                "a status line was left behind: \(final)")
        let written = try JSONDecoder().decode(PitchMatch.Result.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/match.json")))
        // Every pair answered 1 (tone 1) after its question, every loudness left at +0 dB.
        let expected = try SimulatedListener(alwaysAnswering: .first).run(try PitchMatch(seed: 3))
        #expect(written == expected, "\(written.choices)")
    }

    @Test func audiometryAtEightyColumnsDropsKeysPressedInThePause() throws {
        let seed: UInt64 = 5
        let screen = try Terminal(["audiometry", "--ear", "right", "--frequencies", "1000", "--seed", "\(seed)", "-o", "audiogram.json"],
                                  in: folder)
        defer { screen.stop() }
        let listen = "right ear, 1000 Hz (frequency 1 of 1): listen; space when you hear a tone"
        let patterns = [#"Press space to begin\."#, #"right ear, 1000 Hz \(frequency 1 of 1\): (listen; space when you hear a tone|heard)"#]
        try screen.check(try screen.waitForStatus { $0 == "Press space to begin." }, statusPatterns: patterns)
        screen.send("Space")
        // The pauses the procedure draws from its seed: each tone starts that long after "listen" is shown.
        var pauses = SplitMix64(seed: seed)
        var expected = try Audiometry(ears: [.right], frequenciesHz: [1000], scale: .fullScale)
        while expected.presentation != nil {
            let lines = try screen.waitForStatus { $0 == listen }
            try screen.check(lines, statusPatterns: patterns)
            let shown = Date()
            let pause = 1.5 + 1.5 * pauses.nextUnit()
            usleep(300_000)
            screen.send("Space")                                       // in the pause: no answer
            usleep(useconds_t(max(0, pause + 0.5 - Date().timeIntervalSince(shown)) * 1e6))
            screen.send("Space")                                       // in the response window: heard
            try screen.check(try screen.waitForStatus { $0.hasSuffix("): heard") }, statusPatterns: patterns)
            expected.answer(heard: true)
        }
        let final = try screen.finalScreen(statusPatterns: patterns)
        #expect(!final.contains { $0.contains("listen;") || $0.contains("): heard") || $0.contains("Press space to begin") }, "\(final)")
        let written = try JSONDecoder().decode(Audiogram.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/audiogram.json")))
        #expect(written == expected.result, "\(written)")
    }

    @Test func mmlAtEightyColumnsDropsAKeyPressedBeforeItsQuestion() throws {
        let screen = try Terminal(["mml", "--frequency", "6kHz", "--threshold", "-80", "-o", "mml.json"], in: folder)
        defer { screen.stop() }
        let patterns = [#"noise at step \d+: (listen|do you still hear your tinnitus\? y or n)"#]
        try screen.check(try screen.waitForStatus { $0 == "noise at step 1: listen" }, statusPatterns: patterns)
        screen.send("y")                                               // while the step plays: no answer
        try screen.check(try screen.waitForStatus { $0 == "noise at step 1: do you still hear your tinnitus? y or n" },
                         statusPatterns: patterns)
        screen.send("y")
        try screen.check(try screen.waitForStatus { $0 == "noise at step 2: do you still hear your tinnitus? y or n" },
                         statusPatterns: patterns)
        screen.send("n")
        try screen.finalScreen(statusPatterns: patterns)
        let written = try JSONDecoder().decode(MinimumMaskingLevel.Result.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/mml.json")))
        var expected = try MinimumMaskingLevel(frequencyHz: 6_000, thresholdDBFS: -80)
        expected.answer(tinnitusHeard: true)
        expected.answer(tinnitusHeard: false)
        #expect(written == expected.result, "\(written)")
    }

    @Test func mrilAtEightyColumnsAsksTheMaskingThenTheSilences() throws {
        let screen = try Terminal(["mril", "--frequency", "6kHz", "--threshold", "-80", "--burst", "0.5s", "--silence", "0.5s",
                                   "-o", "mril.json"], in: folder)
        defer { screen.stop() }
        let patterns = [#"bursts at step \d+: listen"#, #"step \d+: do you still hear your tinnitus during the bursts\? y or n"#,
                        #"step \d+: your tinnitus in the silences\? u unchanged, r reduced, g gone"#]
        try screen.check(try screen.waitForStatus { $0 == "bursts at step 1: listen" }, statusPatterns: patterns)
        screen.send("n")                                               // while the bursts play: no answer
        try screen.check(try screen.waitForStatus { $0 == "step 1: do you still hear your tinnitus during the bursts? y or n" },
                         statusPatterns: patterns)
        screen.send("y")
        try screen.check(try screen.waitForStatus { $0 == "step 2: do you still hear your tinnitus during the bursts? y or n" },
                         statusPatterns: patterns)
        screen.send("n")
        try screen.check(try screen.waitForStatus { $0 == "step 3: your tinnitus in the silences? u unchanged, r reduced, g gone" },
                         statusPatterns: patterns)
        screen.send("u")
        try screen.check(try screen.waitForStatus { $0 == "step 4: your tinnitus in the silences? u unchanged, r reduced, g gone" },
                         statusPatterns: patterns)
        screen.send("g")
        try screen.finalScreen(statusPatterns: patterns)
        let written = try JSONDecoder().decode(MinimumResidualInhibitionLevel.Result.self,
                                               from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/mril.json")))
        var expected = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, thresholdDBFS: -80,
                                                          bursts: .init(burstSeconds: 0.5, silenceSeconds: 0.5, envelope: .triangular))
        expected.answer(tinnitusHeard: true)
        expected.answer(tinnitusHeard: false)
        expected.answer(silence: .unchanged)
        expected.answer(silence: .gone)
        #expect(written == expected.result && written.levelDBFS == -76 && written.maskingLevelDBFS == -78, "\(written)")
    }

    @Test func loudnessMatchAtEightyColumnsDropsAKeyTypedBeforeItsQuestion() throws {
        // Enter typed before the procedure starts (the shell waits a second first) answers nothing.
        let screen = try Terminal(["loudness-match", "--frequency", "6kHz", "--threshold", "-80", "-o", "loudness.json"], in: folder,
                                  startAfter: 1)
        defer { screen.stop() }
        screen.send("Enter")
        let patterns = [#"tone [+-]\d+ dB above your threshold; tone softer: up, louder: down, equal: enter"#]
        try screen.check(try screen.waitForStatus { $0.hasPrefix("tone +10 dB") }, statusPatterns: patterns)
        screen.send("Up")
        try screen.check(try screen.waitForStatus { $0.hasPrefix("tone +12 dB") }, statusPatterns: patterns)
        screen.send("Enter")
        try screen.finalScreen(statusPatterns: patterns)
        let written = try JSONDecoder().decode(LoudnessMatch.Result.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/loudness.json")))
        var expected = try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: -80)
        expected.answer(.softer)
        expected.answer(.equal)
        #expect(written == expected.result, "\(written)")
    }
}

/// A terminal of its own: a tmux server on a socket in the test's folder (no other session shares it) with one
/// session of 80×24 running `shades arguments` with the headless server's environment. When `shades` ends,
/// the shell prints ``exitLine`` and its status and waits, so the last screen can be read. ``stop()`` kills
/// the server and, with it, whatever still runs in it.
final class Terminal {
    static let tool = "/usr/bin/tmux"
    static let exitLine = "shades exited "
    static let columns = 80, rows = 24
    let socket: String

    /// Starts the session; `startAfter` seconds pass in the shell before `shades` starts.
    init(_ arguments: [String], in folder: String, startAfter delay: Double = 0) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool), "tmux is not installed (make live-deps installs it)")
        socket = "\(folder)/tmux.socket"
        let environment = ["XDG_RUNTIME_DIR", "HOME", "PULSE_SINK", "PULSE_SERVER"].compactMap { name in
            LiveServer.environment[name].map { "\(name)=\(Self.quoted($0))" }
        }
        let command = (["sleep", "\(delay)", ";", "env"] + environment + [Shell.executable] + arguments.map(Self.quoted)
                       + [";", "echo", "\"\(Self.exitLine)$?\"", ";", "exec", "sleep", "600"]).joined(separator: " ")
        // Started as a shell would (``Child``): the server this forks would keep what Foundation's `Process`
        // watches its child by, and its blocked signals.
        let client = try Child(Self.tool, ["-S", socket, "new-session", "-d", "-s", "test", "-x", "\(Self.columns)", "-y", "\(Self.rows)",
                                           "-c", folder, "/bin/sh", "-c", command])
        try #require(client.wait() == 0, "tmux new-session failed")
    }

    deinit { stop() }

    /// Kills the tmux server (and the procedure, if it still runs).
    func stop() { _ = try? Self.run(["-S", socket, "kill-server"]) }

    /// Types `key` (a tmux key name: "Enter", "Space", "Up", or a character).
    func send(_ key: String) { _ = try? Self.run(["-S", socket, "send-keys", "-t", "test", key]) }

    /// Every line written so far, the history above the screen included, with each line the terminal wrapped
    /// joined back into one; trailing blanks and blank lines at the end dropped.
    func capture() -> [String] {
        let text = (try? Self.run(["-S", socket, "capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "test"])) ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// The screen once its last line (the status) is one for which `accept` is true; fails after `timeout` s.
    func waitForStatus(timeout: Double = 15, _ accept: (String) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = capture()
            if let last = lines.last, accept(last) { return lines }
            guard Date() < deadline else { throw LiveError("no expected status within \(timeout) s; the screen: \(lines)") }
            usleep(40_000)
        }
    }

    /// The screen once its status is no longer `previous` (any status when nil) and not empty.
    func waitForStatus(changedFrom previous: String?, timeout: Double) throws -> [String] {
        try waitForStatus(timeout: timeout) { $0 != previous }
    }

    /// No line is longer than the terminal, and every line that begins like a status is one status, whole.
    func check(_ lines: [String], statusPatterns: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for line in lines {
            #expect(line.count <= Self.columns, "a line of \(line.count) columns: '\(line)'", sourceLocation: sourceLocation)
        }
        let regexes = try statusPatterns.map { try Regex("^(\($0)) ?$") }
        let starts = try statusPatterns.map { try Regex("\($0)") }
        for line in lines where starts.contains(where: { line.contains($0) }) {
            #expect(regexes.contains { line.wholeMatch(of: $0) != nil }, "a status with stale fragments: '\(line)'",
                    sourceLocation: sourceLocation)
        }
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs tmux with `arguments` against the running server; its standard output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String { try PipeWireServer.run(tool, arguments).output }

    /// The screen once the procedure has ended: checked like the others, and `shades` exited with 0.
    @discardableResult
    func finalScreen(statusPatterns: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let final = try waitForStatus { $0.hasPrefix(Self.exitLine) }
        try check(final, statusPatterns: statusPatterns, sourceLocation: sourceLocation)
        #expect(final.last == "\(Self.exitLine)0", "\(final)", sourceLocation: sourceLocation)
        return final
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesRender
import ShadesProcedures
import ShadesAudioDevice
import ShadesPlatform

/// The live side of an interactive procedure (`match`, `audiometry`, `loudness-match`, `mml`): sounds
/// through the player engine on an output device, one key at a time from the terminal, and a status line
/// rewritten in place on standard error. ``close()`` restores the terminal and stops the output.
final class ProcedureConsole {
    /// A key the procedures understand.
    enum Key: Equatable {
        case character(Character)
        case up, down, enter, space
        /// q, Ctrl-C or the end of input.
        case quit
    }

    static let sampleRate = 48_000.0
    let engine: PlayerEngine
    private let output: AudioOutput
    private var saved = termios()
    private var isOpen = true

    /// Opens `device` (an index or part of a name, nil for the default) and puts the terminal in raw mode
    /// (no echo, no line buffering, Ctrl-C read as a key so the terminal is always restored). Refuses a
    /// standard input that is not a terminal.
    init(device: String?, procedure: String) throws {
        guard isatty(0) == 1 else {
            throw ShadesError.usage("\(procedure) is interactive: it needs a terminal (allowed: a terminal, or --simulate)")
        }
        engine = PlayerEngine(sampleRate: Self.sampleRate, channelCount: 2)
        let choice = OutputDeviceChoice(flag: device)
        output = try AudioOutput(engine: engine, device: choice, bufferFrames: 480, latencySeconds: AudioOutput.defaultLatencySeconds)
        try output.start()
        tcgetattr(0, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        tcsetattr(0, TCSANOW, &raw)
    }

    deinit { close() }

    /// Restores the terminal and stops the output (after what is queued has played).
    func close() {
        guard isOpen else { return }
        isOpen = false
        tcsetattr(0, TCSANOW, &saved)
        output.stop()
        // Gaps in the tones would spoil the answers: say how many there were.
        say("audio output: \(engine.underruns) underruns while the tones played, real-time scheduling "
            + (output.realTimeScheduling ? "granted" : "refused"))
    }

    // MARK: Text

    /// Terminal rows the status line takes now (0: none shown).
    private var statusRows = 0

    /// The terminal's width (of standard error, else standard input), at most 80 columns.
    var columns: Int { terminalColumns(2) ?? terminalColumns(0) ?? maximumScreenColumns }

    /// Moves to the start of the status line and clears from there to the end of the screen (every row a
    /// wrapped status took).
    private var clearStatus: String {
        "\r" + (statusRows > 1 ? "\u{1B}[\(statusRows - 1)A" : "") + "\u{1B}[J"
    }

    /// Replaces the status line with `text`, wrapped to one column less than the terminal's width (the
    /// cursor stays on its last row, so the next rewrite finds every row it took).
    func status(_ text: String) {
        let lines = text.wrapped(toWidth: columns - 1)
        printToStandardError(clearStatus + lines.joined(separator: "\n"))
        statusRows = lines.count
    }

    /// Asks `question` on the status line, first dropping the keys typed so far: only a key pressed after the
    /// question is shown answers it.
    func ask(_ question: String) {
        dropTypedKeys()
        status(question)
    }

    /// Replaces the status line with `text` as lines of their own, wrapped to the terminal's width (each line
    /// of `text` a paragraph).
    func say(_ text: String) {
        printToStandardError(clearStatus + text.wrapped(toWidth: columns).map { $0 + "\n" }.joined())
        statusRows = 0
    }

    /// An error for the user's q: on a line of its own, below the status line.
    func stopped(_ procedure: String) -> ShadesError {
        if statusRows > 0 { printToStandardError("\n") }
        statusRows = 0
        return ShadesError.runtime("\(procedure) stopped before its end (q or Ctrl-C): nothing was written")
    }

    // MARK: Keys

    /// The next key, waiting at most `timeout` seconds (nil: for ever); nil when none came.
    func key(timeout: Double? = nil) -> Key? {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32(max(0, $0 * 1000)) } ?? -1
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var byte: UInt8 = 0
        guard Platform.read(0, &byte, 1) == 1 else { return .quit }
        switch byte {
        case 0x1B:
            // An escape sequence: ESC [ A (up), ESC [ B (down); a lone escape is ignored.
            var sequence = [UInt8](repeating: 0, count: 2)
            guard poll(&descriptor, 1, 50) > 0, Platform.read(0, &sequence, 2) == 2, sequence[0] == UInt8(ascii: "[") else {
                return .character("\u{1B}")
            }
            return sequence[1] == UInt8(ascii: "A") ? .up : sequence[1] == UInt8(ascii: "B") ? .down : .character("\u{1B}")
        case 3, 4, UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
        case 10, 13: return .enter
        case 32: return .space
        case UInt8(ascii: "+"): return .up
        case UInt8(ascii: "-"): return .down
        default: return .character(Character(Unicode.Scalar(byte)))
        }
    }

    /// The first key within `seconds` for which `accept` is true (others are dropped); nil when none came.
    func key(within seconds: Double, accepting accept: (Key) -> Bool) -> Key? {
        guard seconds.isFinite else {
            while true { if let key = key(timeout: nil), accept(key) { return key } }
        }
        let deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, seconds) * 1e9))
        while true {
            let left = (deadline - ContinuousClock.now).components
            let remaining = Double(left.seconds) + Double(left.attoseconds) * 1e-18
            guard remaining > 0, let key = key(timeout: remaining) else { return nil }
            if accept(key) { return key }
        }
    }

    /// Drops the keys typed so far and not yet read (pressed early, before a question): the terminal's input
    /// queue is flushed (`tcflush(TCIFLUSH)`).
    func dropTypedKeys() { tcflush(0, TCIFLUSH) }

    /// Waits `seconds` while sounds play, releasing what the engine no longer plays. Keys pressed meanwhile
    /// answer nothing and are dropped, but q ends the wait at once: true when it did.
    func waitForQuit(_ seconds: Double) -> Bool {
        let quit = key(within: seconds, accepting: { $0 == .quit }) != nil
        engine.collectGarbage()
        return quit
    }

    // MARK: Sound

    /// Starts `sound` (a generator with its modifiers) at `levelDBFS` RMS, at frame `atFrame` or at once;
    /// it plays until stopped (a pulsed or faded sound ends in silence).
    func play(_ sound: Sound, levelDBFS: Double, gainDB: Double = 0, fadeInSeconds: Double = 0, atFrame: Int? = nil) throws -> PlayerEngine.VoiceID {
        let request = RenderRequest(sound: sound, durationSeconds: 3_600, sampleRate: Self.sampleRate, layout: .diotic,
                                    level: .rms(dBFS: levelDBFS))
        let stream = try SoundGraph(request).makeLiveStream()
        return try engine.play(stream.source, gainDB: gainDB, fadeInSeconds: fadeInSeconds, atFrame: atFrame)
    }

    /// Frames from the engine's start to `seconds` from now.
    func frame(after seconds: Double) -> Int { engine.framesRendered + Int(seconds * Self.sampleRate) }
}

extension OutputDeviceChoice {
    /// `--device` (`play`, `meter`, the procedures): an index from `--list-devices` or a name; the system's
    /// default without it.
    init(flag text: String?) {
        self = text.map { Int($0).map(OutputDeviceChoice.index) ?? .name($0) } ?? .systemDefault
    }
}

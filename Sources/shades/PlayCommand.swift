import ArgumentParser
import Synchronization
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesAnalysis
import ShadesCatalogue
import ShadesAudioDevice
import ShadesPlatform

/// `shades play SOURCE …`: a sound, a music file or a catalogue preset through the sound card, live.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound, a music file or a catalogue preset live through the sound card (PortAudio).",
        discussion: """
            Plays until Ctrl-C (a 0.3 s fade, exit 0), the end of --timer, or the end of a music file. \
            The sound options are those of `shades render`; --fade-in and --fade-out (or --fade) shape the \
            start and the timer's end. A level whose samples would pass full scale in the first 10 s is \
            refused, as render refuses one. In a terminal: up/down or +/- volume (2 dB steps, up no further \
            than the loudest sample so far allows below full scale), space pause, q quit.

            Examples:
              shades play pink --am 10 --level -30
              shades play brown --timer 45m --fade-out 60s
              shades play song.mp3 --notch 6kHz
              shades play --preset pink-am10 --presets Presets
              shades play --device list
            """)

    @Argument(help: ArgumentHelp("A sound (\(Generator.sourceNames.joined(separator: ", "))) or a music file."))
    var source: String?

    @OptionGroup var sound: SoundOptions

    @Option(parsing: .unconditional, help: "Stop after this long with a fade (--fade-out, default 5s): 45m, 1h, 90s.")
    var timer: String?

    @Option(parsing: .unconditional, help: "Play this catalogue sound (an id of the presets folder) instead of SOURCE.")
    var preset: String?

    @Option(parsing: .unconditional, help: "The presets folder for --preset (default Presets).")
    var presets: String?

    @OptionGroup var tinnitusFrequency: TinnitusFrequencyOption<SoundHelp.TinnitusFrequency>

    @OptionGroup var soundCard: OutputDeviceOption

    @Option(parsing: .unconditional, help: "Frames per audio callback (480) or a time (10ms, the default).")
    var buffer: String?

    @Option(parsing: .unconditional, help: "Output latency to ask of the device (its buffer): 40ms by default, at least two callbacks.")
    var latency: String?

    @Flag(name: .customLong("no-realtime"), help: "Do not ask for real-time scheduling of the audio threads.")
    var noRealtime = false

    @Flag(help: "No status line and no summary.")
    var quiet = false

    @Option(parsing: .unconditional, help: "Write {frames, playedFrames, underruns, readerUnderruns, latencySeconds, notchDelaySeconds, bufferFrames, sampleRate, realtime, callbacks, renderSeconds, longestCallbackSeconds} as JSON to this file when done (readerUnderruns: callbacks a music file's reader was behind, filled with silence; realtime: whether real-time scheduling was granted; renderSeconds: the time the callbacks took).")
    var report: String?

    func run() throws {
        if soundCard.device?.lowercased() == "list" { return try listDevices() }
        let timerSeconds = try timer.map { try parsePositiveSeconds($0, parameter: .timer) }
        let fadeIn = try fadeSeconds(sound.flags.fadeIn, .fadeIn) ?? fadeSeconds(sound.flags.fade, .fade) ?? 0.05
        let fadeOut = try fadeSeconds(sound.flags.fadeOut, .fadeOut) ?? fadeSeconds(sound.flags.fade, .fade)
        if let timerSeconds {
            let named = sound.flags.fadeOut != nil ? "--fade-out" : "--fade"
            if let fadeOut, fadeOut > timerSeconds {
                throw ShadesError.usage("\(named) \(formatNumber(fadeOut)) s is longer than --timer \(formatNumber(timerSeconds)) s (allowed: a fade-out up to the timer)")
            }
            if fadeIn > timerSeconds {
                throw ShadesError.usage("--fade-in \(formatNumber(fadeIn)) s is longer than --timer \(formatNumber(timerSeconds)) s (allowed: a fade-in up to the timer)")
            }
        }
        let (source, what, gainDB, length, notchDelayFrames, peak) = try makeSource()
        if timerSeconds == nil && length == nil && sound.flags.fadeOut != nil {
            // An endless sound ends only by Ctrl-C (its own short fade) or a timer: the fade-out would not be heard.
            throw ShadesError.usage("--fade-out applies to --timer, which is not given (allowed: --fade-out with --timer, or with a music file)")
        }
        let rate = source.sampleRate
        let bufferFrames = try buffer.map { try parseBuffer($0, sampleRate: rate) } ?? Int(0.01 * rate)
        let choice = OutputDeviceChoice(flag: soundCard.device)

        let engine = PlayerEngine(sampleRate: rate, channelCount: source.channelCount)
        // The source is prepared for real time here, before the stream starts (a notch's pre-roll, a file's
        // reader decoded ahead).
        try engine.play(source, gainDB: gainDB, fadeInSeconds: fadeIn)
        let latencySeconds = try latency.map { try parsePositiveSeconds($0, parameter: .latency) } ?? AudioOutput.defaultLatencySeconds
        let output = try AudioOutput(engine: engine, device: choice, bufferFrames: bufferFrames, latencySeconds: latencySeconds,
                                     realTime: !noRealtime)
        // The timer or the file's end, whichever comes first.
        let end = [timerSeconds, length].compactMap({ $0 }).min()
        if let end { engine.setTimer(seconds: end, fadeOutSeconds: min(end, fadeOut ?? (timerSeconds != nil ? 5 : 0.05))) }

        let session = LiveSession(engine: engine, what: what, endSeconds: end, measuredPeak: peak,
                                  showsStatus: !quiet && isatty(2) != 0, readsKeys: !quiet && isatty(0) != 0)
        try output.start()
        session.run()
        let latency = output.latencySeconds
        output.stop()

        let frames = engine.framesRendered, played = engine.framesPlayed
        let realTime = output.realTimeScheduling
        let cost = output.callbackStatistics
        let notchDelay = Double(notchDelayFrames) / rate
        if !quiet {
            let reader = length == nil ? "" : ", \(engine.readerUnderruns) times the file's reader was behind"
            let notch = notchDelayFrames == 0 ? "" : " + notch delay \(String(format: "%.1f", notchDelay * 1000)) ms"
            let scheduling = noRealtime ? "not asked" : (realTime ? "granted" : "refused")
            printToStandardError("played \(what) through '\(output.device.name)': \(frames) frames (\(String(format: "%.1f", Double(played) / rate)) s played), \(engine.underruns) underruns\(reader), latency \(String(format: "%.1f", latency * 1000)) ms\(notch) (buffer \(bufferFrames) frames at \(Int(rate)) Hz; real-time scheduling \(scheduling))\n")
        }
        if let report {
            let json = "{\"frames\": \(frames), \"playedFrames\": \(played), \"underruns\": \(engine.underruns), \"readerUnderruns\": \(engine.readerUnderruns), \"latencySeconds\": \(latency), \"notchDelaySeconds\": \(notchDelay), \"bufferFrames\": \(bufferFrames), \"sampleRate\": \(Int(rate)), \"realtime\": \(realTime), \"callbacks\": \(cost.callbacks), \"renderSeconds\": \(cost.totalSeconds), \"longestCallbackSeconds\": \(cost.longestSeconds)}\n"
            try AtomicFile.write(Array(json.utf8), to: report)
        }
    }

    private func listDevices() throws {
        let devices = try AudioOutput.devices()
        guard !devices.isEmpty else {
            throw ShadesError.runtime("no audio output device found: no sound card and no audio server reachable (for PulseAudio set XDG_RUNTIME_DIR or PULSE_SERVER)")
        }
        for device in devices {
            print("\(device.index)\(device.isDefault ? "*" : " ") \(device.name) (\(device.hostAPI), \(device.maximumOutputChannels) channels, \(Int(device.defaultSampleRate)) Hz, low latency \(String(format: "%.1f", device.defaultLowLatencySeconds * 1000)) ms)")
        }
    }

    /// A fade's length (`parameter` is the fade's): 0 … 24 h.
    private func fadeSeconds(_ text: String?, _ parameter: Parameter) throws -> Double? {
        try text.map { text throws in
            let seconds = try ValueParsing.seconds(text, parameter: parameter.id)
            try parameter.check(seconds)
            return seconds
        }
    }

    /// A time above 0 and at most 24 h: the timer, the latency.
    private func parsePositiveSeconds(_ text: String, parameter: ParameterID) throws -> Double {
        let seconds = try ValueParsing.seconds(text, parameter: parameter)
        try Parameter(parameter, unit: .seconds, range: Parameter.duration.range).check(seconds)
        return seconds
    }

    /// Frames per callback: a count (480) or a time (10ms) at `sampleRate`, 16 … 16384 frames.
    private func parseBuffer(_ buffer: String, sampleRate: Double) throws -> Int {
        let frames = ParameterRange(16...16_384, unit: .frames, wholeNumbers: true)
        let refusal = ShadesError(.buffer, .outOfRange, value: .given(buffer),
                                  allowed: AllowedValues(range: frames, note: "or a time of as many frames (480, 10ms)"))
        if let count = try? ValueParsing.number(buffer, parameter: .buffer) {
            guard frames.contains(count) else { throw refusal }
            return Int(count)
        }
        guard let seconds = try? ValueParsing.seconds(buffer, parameter: .buffer),
              frames.contains((seconds * sampleRate).rounded()) else { throw refusal }
        return Int((seconds * sampleRate).rounded())
    }

    /// The stream to play, what to call it, its gain in dB, its length in seconds (nil: endless), the
    /// notch's delay in frames (the longest kernel's half length: how far ahead of its output a notched
    /// file is read; 0 without a notch) and its peak measured before playing (linear; 0 when not measured).
    private func makeSource() throws -> (any AudioSource, String, Double, Double?, Int, Double) {
        if let preset {
            if source != nil { throw ShadesError.usage("give a SOURCE or --preset, not both") }
            // A preset plays as the catalogue built it: the sound options would be ignored.
            let fades = ["--fade", "--fade-in", "--fade-out"]  // the player's own, with any sound
            if let flag = try sound.flagsGiven(renamed: ["soundFile": "--sound"]).first(where: { !fades.contains($0) }) {
                throw ShadesError.usage("\(flag) does not apply to --preset (a catalogue sound plays as built; allowed: --timer, the fades, --device, --buffer, --latency)")
            }
            var info = stat()
            let presets = self.presets ?? "Presets"
            guard stat(presets, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw ShadesError.usage("--preset \(preset): no presets folder '\(presets)' here (allowed: --presets FOLDER, a folder of catalogue JSON files such as the repository's Presets/)")
            }
            if let report { try CommandPaths.checkOutput(report, option: "--report", inputs: [CommandInput(presets, name: "--presets")]) }
            let asset = try PresetAssets.sound(id: preset, presetsFolder: presets, tinnitusFrequencyHz: try tinnitusFrequency.hertz())
            // The catalogue file's samples, looped, at the catalogue's loudness (as the app plays them).
            let (loop, gain) = try asset.makeLoop()
            return (loop, "preset \(preset)", gain, nil, 0, 0)
        }
        for (flag, given) in [("--presets", presets != nil), ("--tinnitus-frequency", tinnitusFrequency.tinnitusFrequency != nil)] where given {
            throw ShadesError.usage("\(flag) applies to --preset, which is not given (allowed: \(flag) with --preset)")
        }
        let request = try sound.makeRequest(source: source, duration: nil, defaultSeconds: 60, includingFades: false)
        if let report { try CommandPaths.checkOutput(report, option: "--report", inputs: sound.inputs(of: request)) }
        let graph = try SoundGraph(request)
        let stream = try graph.makeLiveStream()
        var what = source.map { $0.lastPathComponent } ?? sound.soundFile?.lastPathComponent ?? "sound"
        switch request.level {
        case .rms(let level): what += " at \(formatNumber(level)) dBFS"
        case .truePeakCeiling(let ceiling): what += " at \(formatSigned(stream.gainDB, digits: 1)) dB (true peak ≤ \(formatNumber(ceiling)) dBTP)"
        case .loudness: break
        }
        if let am = sound.flags.am { what += ", AM \(am)" }
        if let notch = sound.flags.notch { what += ", notch \(notch)" }
        return (stream.source, what, 0, stream.frames.map { Double($0) / request.sampleRate }, graph.notchDelayFrames, stream.peak)
    }

}

/// The control thread while playing: keys, the status line, Ctrl-C, and the end (the fade played out,
/// then ~100 ms of silence, since PortAudio's ALSA path drops the last buffer).
private final class LiveSession {
    let engine: PlayerEngine
    let what: String
    let endSeconds: Double?
    let showsStatus: Bool
    let readsKeys: Bool
    private var volumeDB = 0.0
    /// The largest |sample| measured before playing or played so far, divided by the volume's gain, linear:
    /// the volume rises only while it keeps that at or below full scale.
    private var loudestBeforeVolume: Float
    /// The highest volume since the peak was last taken, dB: what the samples of that peak were played at,
    /// at most (the volume ramps to a new value over 50 ms).
    private var loudestVolumeSincePeak = 0.0
    /// The largest |sample| since the status line was last drawn, linear.
    private var recentPeak: Float = 0
    private var paused = false
    private var finishing = false
    private var savedTerminal: termios?

    init(engine: PlayerEngine, what: String, endSeconds: Double?, measuredPeak: Double, showsStatus: Bool, readsKeys: Bool) {
        (self.engine, self.what, self.endSeconds, self.showsStatus, self.readsKeys) = (engine, what, endSeconds, showsStatus, readsKeys)
        loudestBeforeVolume = Float(measuredPeak)
    }

    func run() {
        // SIGINT, SIGTERM, SIGHUP: the loop below fades out and ends (nothing to clean up).
        InterruptHandling.handOverToCommand()
        if readsKeys { enterRawMode() }
        defer { leaveRawMode() }
        var finishedAt: Int?
        let rate = engine.sampleRate
        while true {
            if InterruptHandling.takeRequest() { finish() }
            notePeak()
            if readsKeys { handleKeys() }
            engine.collectGarbage()
            if showsStatus { drawStatus() }
            if engine.isFinished {
                finishedAt = finishedAt ?? engine.framesRendered
                if engine.framesRendered - finishedAt! >= Int(0.1 * rate) { break }
            }
            usleep(finishedAt == nil ? 50_000 : 10_000)
        }
        if showsStatus { printToStandardError("\r\u{1B}[K") }
    }

    private func finish() {
        guard !finishing else { return }
        finishing = true
        engine.finish(fadeSeconds: 0.3)
    }

    private func handleKeys() {
        var bytes = [UInt8](repeating: 0, count: 16)
        let n = bytes.withUnsafeMutableBytes { Platform.read(0, $0.baseAddress!, $0.count) }
        guard n > 0 else { return }
        var i = 0
        while i < n {
            let byte = bytes[i]
            if byte == 0x1B, i + 2 < n, bytes[i + 1] == UInt8(ascii: "[") {
                if bytes[i + 2] == UInt8(ascii: "A") { changeVolume(by: 2) }
                if bytes[i + 2] == UInt8(ascii: "B") { changeVolume(by: -2) }
                i += 3
                continue
            }
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "="): changeVolume(by: 2)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): changeVolume(by: -2)
            case UInt8(ascii: " "):
                paused.toggle()
                engine.setPaused(paused)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 3: finish()
            default: break
            }
            i += 1
        }
    }

    /// Takes the engine's peak since the last call into ``recentPeak`` and ``loudestBeforeVolume``.
    private func notePeak() {
        let peak = engine.takePeak()
        recentPeak = max(recentPeak, peak)
        loudestBeforeVolume = max(loudestBeforeVolume, peak / Float(Decibels.amplitude(loudestVolumeSincePeak)))
        loudestVolumeSincePeak = volumeDB
    }

    /// Moves the volume by `dB`, within −60 … +12 dB and, upwards, no further than the loudest sample so
    /// far allows without passing full scale (whole dB).
    private func changeVolume(by dB: Double) {
        var target = min(12, max(-60, volumeDB + dB))
        if dB > 0, loudestBeforeVolume > 0 {
            let ceiling = (-Decibels.fromAmplitude(Double(loudestBeforeVolume))).rounded(.down)
            target = min(target, max(volumeDB, ceiling))
        }
        guard target != volumeDB else { return }
        volumeDB = target
        loudestVolumeSincePeak = max(loudestVolumeSincePeak, volumeDB)
        engine.setMasterGain(volumeDB)
    }

    private func drawStatus() {
        let elapsed = Double(engine.framesPlayed) / engine.sampleRate
        var time = clock(elapsed)
        if let endSeconds { time += " / \(clock(max(0, endSeconds - elapsed))) left" }
        let peak = recentPeak
        recentPeak = 0
        let peakDB = peak > 0 ? 20 * log10(Double(peak)) : -120
        let filled = max(0, min(10, Int(((peakDB + 60) / 6).rounded())))
        let meter = String(repeating: "#", count: filled) + String(repeating: "-", count: 10 - filled)
        let state = finishing ? "ending" : (paused ? "paused" : "playing")
        let levels = "  \(time)  [\(meter)] \(peakDB > -120 ? String(format: "%.0f", peakDB) : "-inf") dBFS  vol \(formatSigned(volumeDB, digits: 0)) dB"
        // One row: redrawn with a carriage return, it must not wrap. What plays is shortened to fit.
        let room = (terminalColumns(2) ?? maximumScreenColumns) - 1 - state.count - 1 - levels.count
        let name = what.count <= room ? what : String(what.prefix(max(0, room - 1))) + "…"
        printToStandardError("\r\u{1B}[K" + state + " " + name + levels)
    }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds)
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }

    private func enterRawMode() {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return }
        savedTerminal = settings
        // Keys without Enter and without echo; Ctrl-C still raises SIGINT (ISIG stays).
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &settings)
    }

    private func leaveRawMode() {
        guard var saved = savedTerminal else { return }
        tcsetattr(0, TCSANOW, &saved)
        savedTerminal = nil
    }
}

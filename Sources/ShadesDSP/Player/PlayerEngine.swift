import ShadesPlatform
import Synchronization

/// The real-time player an app embeds: it mixes any number of sources (up to `maximumVoices`), each
/// with a gain that moves smoothly, started, paused, resumed and stopped with fades, replaced by another
/// sound with an equal-power crossfade; a sleep timer (or the app's loop length) ends playback with a
/// raised-cosine fade. It knows no audio API: the app's audio callback (an AVAudioSourceNode, a
/// PortAudio or JACK callback) calls ``render(into:)`` with each block.
///
/// Threads: one control thread (the app's, any one) calls the control functions; they queue commands
/// on a lock-free single-producer/single-consumer ring. ``play(_:gainDB:fadeInSeconds:atFrame:)`` and
/// ``crossfade(_:to:seconds:atFrame:)`` prepare the source for real time first, on the control thread
/// (``RealTimePreparation``: a notch streams in small partitions, a file's reader decodes ahead and never
/// makes the audio thread wait). The audio thread's ``render(into:)`` applies the commands, allocates
/// nothing, takes no locks, does no I/O and never blocks. Sources a voice no longer needs go back to the
/// control thread on a second ring and are released there (``collectGarbage()``, also run by every control
/// call), so no source is freed on the audio thread: the engine holds at most as many sources as that ring
/// has room for, and refuses more (`droppedCommands`).
///
/// Time is counted in frames from the first rendered frame. A command applies at the start of the next
/// render call, or at an exact frame (`atFrame`): the engine then splits its blocks there, so a schedule
/// gives the same samples whatever the block sizes. The sleep timer counts played frames
/// (``framesPlayed``): while everything is paused (``setPaused(_:fadeSeconds:atFrame:)``, once its fade
/// has played) neither it nor the timer moves.
///
/// Shapes (t from 0 to 1 over the fade): a fade in is the raised cosine (1 − cos πt)/2, a fade out its
/// mirror; a crossfade is equal-power, sin(πt/2) in and cos(πt/2) out (their powers sum to 1); a gain
/// change is a linear ramp of the linear gain (no zipper noise).
public final class PlayerEngine: @unchecked Sendable {
    /// Identifies a voice for later commands.
    public struct VoiceID: Hashable, Sendable { let value: Int }

    public let sampleRate: Double
    public let channelCount: Int
    package let maximumVoices: Int
    /// Largest block ``render(into:)`` accepts at once (larger blocks are rendered in pieces).
    package let maximumBlockFrames: Int

    // Control thread → audio thread.
    private let commands: SPSCRing<Command>
    // Audio thread → control thread: sources to release.
    private let garbage: SPSCRing<any AudioSource>
    private var nextVoice = 0   // control thread
    /// Sources sent to the audio thread and not yet back through `garbage` (control thread): never more
    /// than `garbage` holds, so the audio thread always has room to hand one back.
    private var sourcesOut = 0
    private let garbageCapacity: Int
    /// The file readers' underruns of every source played.
    private let readerUnderrunCounter: UnderrunCounter
    /// Prepares every source played (control thread), counting into `readerUnderrunCounter`.
    private let preparation: RealTimePreparation

    // Audio thread state.
    private var voices: [Voice?]
    private let scratch: AudioBuffer
    private let envelope: UnsafeMutablePointer<Float>
    private var master = Ramp(value: 1)
    private var position = 0
    /// Frames played: `position` less the frames rendered while everything was paused and silent.
    private var clock = 0
    /// Everything paused (``setPaused(_:fadeSeconds:atFrame:)``) and frames until its fade has played.
    private var masterPaused = false
    private var masterPauseFade = 0
    /// The timer, in played frames: where its fade starts and where playback ends, whether the fade has
    /// started, and whether it is a ``finish(fadeSeconds:atFrame:)`` (which a pause does not hold up).
    private var timer: (fadeStart: Int, endFrame: Int, fading: Bool, finishing: Bool)?
    private var timerFade = Ramp(value: 1)

    // Audio thread → any thread.
    private let renderedFrames = Atomic<Int>(0)
    private let playedFrames = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    private let underrunCount = Atomic<Int>(0)
    private let droppedCommandCount = Atomic<Int>(0)
    private let peakBits = Atomic<UInt32>(0)
    private let activeVoiceCount = Atomic<Int>(0)

    /// - Parameters:
    ///   - sampleRate: Hz; every source played must have this rate and `channelCount` channels.
    ///   - channelCount: channels of every block rendered, above 0.
    ///   - maximumVoices: voices playing at once (a crossfade holds two).
    ///   - maximumBlockFrames: the most frames one render call asks for, above 0.
    ///   - commandCapacity: commands queued between two render calls.
    public init(sampleRate: Double, channelCount: Int, maximumVoices: Int = 8, maximumBlockFrames: Int = 4_096,
                commandCapacity: Int = 256) {
        precondition(channelCount > 0 && maximumVoices > 0 && maximumBlockFrames > 0)
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.maximumVoices = maximumVoices
        self.maximumBlockFrames = maximumBlockFrames
        commands = SPSCRing(capacity: commandCapacity)
        garbageCapacity = commandCapacity + maximumVoices
        let counter = UnderrunCounter()
        readerUnderrunCounter = counter
        preparation = RealTimePreparation(readerUnderruns: counter)
        garbage = SPSCRing(capacity: garbageCapacity)
        voices = Array(repeating: nil, count: maximumVoices)
        scratch = AudioBuffer(channelCount: channelCount, frameCapacity: maximumBlockFrames)
        envelope = .allocate(capacity: maximumBlockFrames)
        envelope.initialize(repeating: 0, count: maximumBlockFrames)
    }

    deinit { envelope.deallocate() }

    // MARK: Control (one control thread)

    /// Prepares `source` for real time (``RealTimePreparation``) and starts it at `gainDB`, fading in over
    /// `fadeInSeconds`.
    ///
    /// Throws `rate` or `channels` when the source's are not the engine's. When the engine already holds
    /// as many sources as it can hand back to this thread, the source is not played (`droppedCommands`).
    @discardableResult
    public func play(_ source: any AudioSource, gainDB: Double = 0, fadeInSeconds: Double = 0.05,
                     atFrame: Int? = nil) throws(ShadesError) -> VoiceID {
        let id = try admit(source)
        send(.play(id, source, gain: Float(Self.amplitude(gainDB)), fadeFrames: frames(fadeInSeconds)), atFrame, carriesSource: true)
        return id
    }

    /// Moves the voice's gain to `gainDB` in a linear ramp of `rampSeconds`.
    public func setGain(_ voice: VoiceID, gainDB: Double, rampSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.gain(voice, Float(Self.amplitude(gainDB)), rampFrames: frames(rampSeconds)), atFrame)
    }

    /// Fades the voice out and holds it where it is (its source is not rendered while paused).
    public func pause(_ voice: VoiceID, fadeSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.pause(voice, fadeFrames: frames(fadeSeconds)), atFrame)
    }

    /// Fades a paused voice back in from where it was.
    public func resume(_ voice: VoiceID, fadeSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.resume(voice, fadeFrames: frames(fadeSeconds)), atFrame)
    }

    /// Fades the voice out and removes it.
    public func stop(_ voice: VoiceID, fadeSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.stop(voice, fadeFrames: frames(fadeSeconds)), atFrame)
    }

    /// Replaces the voice's sound by `source` (prepared for real time first) with an equal-power crossfade
    /// of `seconds`; the new voice keeps the old one's gain. Throws as ``play(_:gainDB:fadeInSeconds:atFrame:)``.
    @discardableResult
    public func crossfade(_ voice: VoiceID, to source: any AudioSource, seconds: Double,
                          atFrame: Int? = nil) throws(ShadesError) -> VoiceID {
        let id = try admit(source)
        send(.crossfade(from: voice, to: id, source, fadeFrames: frames(seconds)), atFrame, carriesSource: true)
        return id
    }

    /// Moves the master gain to `gainDB` in a linear ramp (volume keys).
    public func setMasterGain(_ gainDB: Double, rampSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.masterGain(Float(Self.amplitude(gainDB)), rampFrames: frames(rampSeconds)), atFrame)
    }

    /// Pauses (`true`) or resumes everything with a fade of `fadeSeconds`. Once the pausing fade has
    /// played, the played time (``framesPlayed``) and the timer stand still until resumed.
    public func setPaused(_ paused: Bool, fadeSeconds: Double = 0.05, atFrame: Int? = nil) {
        send(.masterPause(paused, fadeFrames: frames(fadeSeconds)), atFrame)
    }

    /// Ends playback after `seconds` of played time from the frame it applies at (or from `atFrame`), the
    /// last `fadeOutSeconds` a raised-cosine fade; then ``isFinished``. A sleep timer, or the app's loop
    /// length. Paused time does not count.
    public func setTimer(seconds: Double, fadeOutSeconds: Double, atFrame: Int? = nil) {
        send(.timer(frames: frames(seconds), fadeFrames: min(frames(fadeOutSeconds), frames(seconds)), finishing: false), atFrame)
    }

    /// Ends playback with a fade of `fadeSeconds` from now (Ctrl-C); while everything is paused and silent,
    /// at once.
    public func finish(fadeSeconds: Double = 0.3, atFrame: Int? = nil) {
        send(.timer(frames: frames(fadeSeconds), fadeFrames: frames(fadeSeconds), finishing: true), atFrame)
    }

    /// Releases the sources the audio thread has finished with. Every control call runs it; call it now
    /// and then when no command is sent.
    public func collectGarbage() {
        while garbage.pop() != nil { sourcesOut -= 1 }
    }

    /// The audio thread reports a device underrun (e.g. PortAudio's `paOutputUnderflow`).
    package func countUnderrun() { underrunCount.add(1, ordering: .relaxed) }

    // MARK: Status (any thread)

    /// Frames rendered since the start.
    package var framesRendered: Int { renderedFrames.load(ordering: .relaxed) }
    /// Frames played since the start: `framesRendered` less those rendered while everything was paused
    /// and silent (a player's clock).
    public var framesPlayed: Int { playedFrames.load(ordering: .relaxed) }
    /// True once the timer's end (or ``finish(fadeSeconds:atFrame:)``) has been rendered: what follows is silence.
    public var isFinished: Bool { finished.load(ordering: .acquiring) }
    /// Underruns reported by the host (`countUnderrun()`): the device found no samples ready.
    public var underruns: Int { underrunCount.load(ordering: .relaxed) }
    /// Render calls in which a file's reader (of any source played) was behind and silence was rendered
    /// instead of waiting.
    public var readerUnderruns: Int { readerUnderrunCounter.count }
    /// Commands dropped because the queue was full (never, with a control thread that waits for render
    /// calls), or sources refused because the engine held as many as it can hand back.
    package var droppedCommands: Int { droppedCommandCount.load(ordering: .relaxed) }
    /// Voices sounding or fading.
    package var activeVoices: Int { activeVoiceCount.load(ordering: .relaxed) }
    /// The largest |sample| rendered since the last call (linear), for a level meter; resets it.
    package func takePeak() -> Float { Float(bitPattern: peakBits.exchange(0, ordering: .relaxed)) }

    // MARK: Rendering (the audio thread)

    /// Renders the next `block.frameCount` frames: the voices mixed, each at its gain and fade, times the
    /// master gain and timer. Allocates nothing, takes no locks, never blocks.
    public func render(into block: AudioBlock) {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        var done = 0
        var peak: Float = 0
        while done < block.frameCount {
            applyDueCommands()
            var n = min(block.frameCount - done, maximumBlockFrames)
            if let due = commands.peek()?.frame, due > position { n = min(n, due - position) }
            // A pausing voice stops rendering its source exactly where its fade ends.
            for voice in voices where voice?.paused == true && voice?.fade.isSettled == false {
                n = min(n, voice!.fade.remainingFrames)
            }
            // The clock stops where a pause of everything has faded out.
            if masterPaused && masterPauseFade > 0 { n = min(n, masterPauseFade) }
            let stopped = masterPaused && masterPauseFade == 0
            if stopped, let current = timer, current.finishing, current.endFrame > clock {
                // Silent already: it ends now.
                timer!.endFrame = clock
                timerFade = Ramp(value: 0)
            }
            if !stopped, let current = timer, !current.fading {
                if clock >= current.fadeStart {
                    timerFade.move(to: 0, frames: current.endFrame - clock, shape: .raisedCosine)
                    timer!.fading = true
                } else {
                    n = min(n, current.fadeStart - clock)
                }
            }
            let part = block.frames(done..<done + n)
            if stopped {
                part.clear()
                renderPausedVoices()
            } else {
                renderPiece(into: part)
                clock += n
                if masterPaused { masterPauseFade -= n }
            }
            for c in 0..<channelCount {
                let samples = part.channel(c)
                for i in 0..<n { peak = max(peak, abs(samples[i])) }
            }
            position += n
            done += n
        }
        if let timer, clock >= timer.endFrame { finished.store(true, ordering: .releasing) }
        renderedFrames.store(position, ordering: .relaxed)
        playedFrames.store(clock, ordering: .relaxed)
        var old = peakBits.load(ordering: .relaxed)
        while Float(bitPattern: old) < peak {
            let (exchanged, now) = peakBits.compareExchange(expected: old, desired: peak.bitPattern, ordering: .relaxed)
            if exchanged { break }
            old = now
        }
    }

    /// While everything is paused and silent: nothing is rendered, but voices stopped during the pause
    /// are removed.
    private func renderPausedVoices() {
        var active = 0
        for v in voices.indices {
            guard let voice = voices[v] else { continue }
            if voice.stopping && release(voice.source) { voices[v] = nil } else { active += 1 }
        }
        activeVoiceCount.store(active, ordering: .relaxed)
    }

    /// Hands `source` back to the control thread; false (kept) in the unexpected case that the ring is full.
    private func release(_ source: any AudioSource) -> Bool { garbage.push(source) }

    private func renderPiece(into part: AudioBlock) {
        let n = part.frameCount
        part.clear()
        var active = 0
        for v in voices.indices {
            guard var voice = voices[v] else { continue }
            if voice.paused && voice.fade.isSettled {
                voices[v] = voice
                active += 1
                continue
            }
            scratch.withBlock(frames: 0..<n) { piece in
                voice.source.render(into: piece)
                for i in 0..<n { envelope[i] = voice.gain.next() * voice.fade.next() }
                for c in 0..<channelCount {
                    let from = piece.channel(c), to = part.channel(c)
                    for i in 0..<n { to[i] += from[i] * envelope[i] }
                }
            }
            if voice.stopping && voice.fade.isSettled && release(voice.source) {
                voices[v] = nil
            } else {
                voices[v] = voice
                active += 1
            }
        }
        activeVoiceCount.store(active, ordering: .relaxed)
        // Master gain and the timer's fade.
        for i in 0..<n { envelope[i] = master.next() * timerFade.next() }
        for c in 0..<channelCount {
            let samples = part.channel(c)
            for i in 0..<n { samples[i] *= envelope[i] }
        }
    }

    private func applyDueCommands() {
        while let due = commands.peek()?.frame, due <= position, let command = commands.pop() {
            apply(command)
        }
    }

    private func apply(_ command: Command) {
        switch command.action {
        case .play(let id, let source, let gain, let fadeFrames):
            guard let slot = voices.firstIndex(where: { $0 == nil }) else { _ = release(source); return }
            voices[slot] = Voice(id: id, source: source, gain: Ramp(value: gain),
                                 fade: Ramp(from: 0, to: 1, frames: fadeFrames, shape: .raisedCosine))
        case .gain(let id, let gain, let rampFrames):
            update(id) { $0.gain.move(to: gain, frames: rampFrames, shape: .linear) }
        case .pause(let id, let fadeFrames):
            update(id) { $0.paused = true; $0.fade.move(to: 0, frames: fadeFrames, shape: .raisedCosine) }
        case .resume(let id, let fadeFrames):
            update(id) { $0.paused = false; $0.fade.move(to: 1, frames: fadeFrames, shape: .raisedCosine) }
        case .stop(let id, let fadeFrames):
            update(id) { $0.stopping = true; $0.fade.move(to: 0, frames: fadeFrames, shape: .raisedCosine) }
        case .crossfade(let from, let to, let source, let fadeFrames):
            guard let old = voices.firstIndex(where: { $0?.id == from }),
                  let slot = voices.firstIndex(where: { $0 == nil }) else { _ = release(source); return }
            let gain = voices[old]!.gain
            voices[old]!.stopping = true
            voices[old]!.fade.move(to: 0, frames: fadeFrames, shape: .equalPowerOut)
            voices[slot] = Voice(id: to, source: source, gain: gain, fade: Ramp(from: 0, to: 1, frames: fadeFrames, shape: .equalPowerIn))
        case .masterGain(let gain, let rampFrames):
            master.move(to: gain, frames: rampFrames, shape: .linear)
        case .masterPause(let paused, let fadeFrames):
            masterPaused = paused
            masterPauseFade = paused ? fadeFrames : 0
            for v in voices.indices where voices[v] != nil {
                voices[v]!.paused = paused
                voices[v]!.fade.move(to: paused ? 0 : 1, frames: fadeFrames, shape: .raisedCosine)
            }
        case .timer(let frames, let fadeFrames, let finishing):
            let end = clock + frames
            // An earlier end wins: a later timer (or Ctrl-C after the end is near) never extends playback.
            if let current = timer, current.endFrame <= end { return }
            if let current = timer, current.fading {
                // Already fading: go on from the fade's present gain to 0 at the new, earlier end.
                timerFade.move(to: 0, frames: end - clock, shape: .raisedCosine)
                timer = (clock, end, true, finishing)
            } else {
                timer = (max(clock, end - fadeFrames), end, false, finishing)
            }
        }
    }

    private func update(_ id: VoiceID, _ body: (inout Voice) -> Void) {
        guard let v = voices.firstIndex(where: { $0?.id == id }) else { return }
        body(&voices[v]!)
    }

    /// Queues `action`; one that hands a source over is refused (counted in ``droppedCommands``) when
    /// the garbage ring could not take every source out back.
    private func send(_ action: Command.Action, _ atFrame: Int?, carriesSource: Bool = false) {
        collectGarbage()
        guard !carriesSource || sourcesOut < garbageCapacity,
              commands.push(Command(frame: atFrame ?? Int.min, action: action)) else {
            droppedCommandCount.add(1, ordering: .relaxed)
            return
        }
        if carriesSource { sourcesOut += 1 }
    }

    /// A new voice for `source`: checked against the engine's rate and channels, prepared for real time.
    private func admit(_ source: any AudioSource) throws(ShadesError) -> VoiceID {
        try checkFits(source)
        let id = VoiceID(value: nextVoice)
        nextVoice += 1
        source.prepareForRealTime(preparation)
        preparation.finish()
        return id
    }

    private func checkFits(_ source: any AudioSource) throws(ShadesError) {
        guard source.sampleRate == sampleRate else {
            throw ShadesError(.rate, .other("differs from the player's"), value: .number(source.sampleRate, .hertz),
                              allowed: AllowedValues(note: "the player's rate, \(formatNumber(sampleRate)) Hz"))
        }
        guard source.channelCount == channelCount else {
            throw ShadesError(.channels, .other("differ from the player's"), value: .number(Double(source.channelCount), .none),
                              allowed: AllowedValues(note: "the player's \(channelCount) channels"))
        }
    }

    private func frames(_ seconds: Double) -> Int { max(0, Int((seconds * sampleRate).rounded())) }

    static func amplitude(_ dB: Double) -> Double { pow(10, dB / 20) }
}

extension PlayerEngine: AudioSource {
    /// Nothing to prepare: the engine prepares each source it is given.
    public func prepareForRealTime(_ preparation: RealTimePreparation) {}
}

import CPortAudio
import CALSAQuiet
import ShadesDSP
import ShadesPlatform
import Synchronization

// With AudioInput.swift, the only files that call PortAudio (CPortAudio). Its flag macros are casts, which
// Swift does not import: their values from portaudio.h (v19).
let paFloat32Format: PaSampleFormat = 0x0000_0001
let paNonInterleavedFormat: PaSampleFormat = 0x8000_0000
let paClipOffFlag: PaStreamFlags = 0x0000_0001
private let paOutputUnderflowFlag: PaStreamCallbackFlags = 0x0000_0004
let paNoDeviceIndex: PaDeviceIndex = -1

/// An output device PortAudio offers (`Pa_GetDeviceInfo`).
public struct OutputDevice: Sendable, Equatable {
    /// PortAudio's device index (what `--device N` chooses).
    public let index: Int
    public let name: String
    /// The host API it belongs to: ALSA, JACK, OSS, …
    package let hostAPI: String
    public let maximumOutputChannels: Int
    /// Hz.
    public let defaultSampleRate: Double
    /// The device's low output latency, seconds.
    package let defaultLowLatencySeconds: Double
    /// PortAudio's default output device.
    public let isDefault: Bool
}

/// Which output device to open.
public enum OutputDeviceChoice: Sendable, Equatable {
    case systemDefault
    /// PortAudio's device index (``OutputDevice/index``).
    case index(Int)
    /// The first output device whose name contains this text (case-insensitive).
    case name(String)
}

/// A PortAudio output stream that plays a ``PlayerEngine``: float32, non-interleaved, the engine's rate
/// and channels. Its callback (a C function; the engine passed through the user-data pointer) wraps
/// PortAudio's channel pointers as an `AudioBlock` (no allocation), calls `PlayerEngine.render(into:)`
/// and counts `paOutputUnderflow` with `PlayerEngine.countUnderrun()`.
///
/// Real-time scheduling: asked by default. The threads PortAudio and its back end start while the stream
/// is opened and started (the callback's, ALSA's PulseAudio plugin's) inherit the scheduling of the thread
/// that opens and starts it, which is raised to `SCHED_FIFO` for just that time where the system grants it
/// (root, or an RLIMIT_RTPRIO above 0); ``realTimeScheduling`` tells what the callback got.
///
/// Control calls (init, ``start()``, ``stop()``, deinit) from one thread.
public final class AudioOutput {
    /// The output latency asked by default, s: 40 ms. Under load (a busy loop per core) a 10 ms device
    /// buffer underran about once in 10 s and 20 ms about once a minute; 40 ms gave none in 10 minutes
    /// (`make load-test`, README: Live playback under load).
    public static let defaultLatencySeconds = 0.04

    package let engine: PlayerEngine
    public let device: OutputDevice
    /// Frames per callback asked of PortAudio (the period).
    package let bufferFrames: Int
    /// Whether real-time scheduling is asked for the audio threads.
    package let asksRealTime: Bool
    private var stream: UnsafeMutableRawPointer?
    private var running = false
    private let state: CallbackState

    /// Priority asked under `SCHED_FIFO` (1 … 99): above every normal thread, below the kernel's own
    /// real-time threads (50) and JACK's usual 70–80.
    static let realTimePriority: Int32 = 40

    /// PortAudio's devices with output channels. Throws a runtime error when PortAudio cannot start.
    public static func devices() throws(ShadesError) -> [OutputDevice] {
        try PortAudioLibrary.initialize()
        defer { Pa_Terminate() }
        return PortAudioLibrary.outputDevices()
    }

    /// Opens `device` for `engine` (`Pa_OpenStream`), not yet started.
    /// - Parameters:
    ///   - bufferFrames: frames per callback (the period).
    ///   - latencySeconds: the output latency asked (PortAudio's suggested latency: the device's buffer),
    ///     at least two periods; by default ``defaultLatencySeconds``.
    /// - Throws: a runtime error naming the devices and host APIs tried when there is no output device
    ///   or it cannot be opened; a parameter error for a device that is not there.
    public init(engine: PlayerEngine, device choice: OutputDeviceChoice = .systemDefault, bufferFrames: Int,
                latencySeconds: Double = AudioOutput.defaultLatencySeconds, realTime: Bool = true) throws(ShadesError) {
        precondition(bufferFrames > 0, "bufferFrames must be > 0")
        self.engine = engine
        self.bufferFrames = bufferFrames
        asksRealTime = realTime
        let state = CallbackState(engine: engine)
        self.state = state
        try PortAudioLibrary.initialize()
        do throws(ShadesError) {
            device = try PortAudioLibrary.choose(choice)
            var parameters = PaStreamParameters(
                device: PaDeviceIndex(device.index), channelCount: Int32(engine.channelCount),
                sampleFormat: paFloat32Format | paNonInterleavedFormat,
                suggestedLatency: max(2 * Double(bufferFrames) / engine.sampleRate, latencySeconds),
                hostApiSpecificStreamInfo: nil)
            var opened: UnsafeMutableRawPointer?
            let user = Unmanaged.passUnretained(state).toOpaque()
            let error = PortAudioLibrary.quietly {
                RealTimeScheduling.whileRaised(realTime) {
                    Pa_OpenStream(&opened, nil, &parameters, engine.sampleRate, UInt(bufferFrames), paClipOffFlag, renderCallback, user)
                }
            }
            guard error == paNoError.rawValue, let opened else {
                throw ShadesError.runtime("cannot open audio output '\(device.name)' (\(device.hostAPI)) at \(Int(engine.sampleRate)) Hz, \(engine.channelCount) channels: \(PortAudioLibrary.text(error))")
            }
            stream = opened
        } catch {
            Pa_Terminate()
            throw error
        }
    }

    deinit {
        if let stream {
            if running { Pa_StopStream(stream) }
            Pa_CloseStream(stream)
        }
        Pa_Terminate()
    }

    /// Starts the callbacks (`Pa_StartStream`).
    public func start() throws(ShadesError) {
        guard let stream, !running else { return }
        let error = PortAudioLibrary.quietly { RealTimeScheduling.whileRaised(asksRealTime) { Pa_StartStream(stream) } }
        guard error == paNoError.rawValue else {
            throw .runtime("cannot start audio output '\(device.name)': \(PortAudioLibrary.text(error))")
        }
        running = true
    }

    /// Stops after the buffers already rendered have played (`Pa_StopStream`), and closes the stream.
    public func stop() {
        guard let stream else { return }
        if running { Pa_StopStream(stream) }
        Pa_CloseStream(stream)
        self.stream = nil
        running = false
    }

    /// Whether the callback ran with real-time scheduling (`SCHED_FIFO` or `SCHED_RR`), as its thread found on
    /// its first call; false before it.
    public var realTimeScheduling: Bool { state.schedulingPolicy.load(ordering: .acquiring) == 1 }

    /// The callbacks so far and the time they took (the engine's render, on the monotonic clock): the
    /// cost of what plays, e.g. total / played time is the share of one core it takes.
    package var callbackStatistics: (callbacks: Int, totalSeconds: Double, longestSeconds: Double) {
        (state.callbacks.load(ordering: .relaxed), Double(state.totalNanoseconds.load(ordering: .relaxed)) / 1e9,
         Double(state.longestNanoseconds.load(ordering: .relaxed)) / 1e9)
    }

    /// The output latency PortAudio reports for the open stream (`Pa_GetStreamInfo`), seconds.
    public var latencySeconds: Double {
        guard let stream, let info = Pa_GetStreamInfo(stream) else { return 0 }
        return info.pointee.outputLatency
    }
}

/// The stream callback: PortAudio's non-interleaved output is an array of one `float *` per channel.
private func renderCallback(_ input: UnsafeRawPointer?, _ output: UnsafeMutableRawPointer?, _ frameCount: UInt,
                            _ time: UnsafePointer<PaStreamCallbackTimeInfo>?, _ flags: PaStreamCallbackFlags,
                            _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let output, let user else { return Int32(paAbort.rawValue) }
    let state = Unmanaged<CallbackState>.fromOpaque(user).takeUnretainedValue()
    let engine = state.engine
    if state.schedulingPolicy.load(ordering: .relaxed) < 0 { state.noteScheduling() }
    if flags & paOutputUnderflowFlag != 0 { engine.countUnderrun() }
    let channels = UnsafeBufferPointer(start: output.assumingMemoryBound(to: UnsafeMutablePointer<Float>.self),
                                       count: engine.channelCount)
    let start = monotonicNanoseconds()
    engine.render(into: AudioBlock(channels: channels, frameCount: Int(frameCount)))
    state.count(nanoseconds: monotonicNanoseconds() - start)
    return Int32(paContinue.rawValue)
}

/// What the callback reaches through its user-data pointer.
private final class CallbackState: Sendable {
    let engine: PlayerEngine
    /// The callback thread's scheduling: −1 not known yet, 0 normal, 1 real time.
    let schedulingPolicy = Atomic<Int>(-1)
    let callbacks = Atomic<Int>(0)
    let totalNanoseconds = Atomic<Int>(0)
    let longestNanoseconds = Atomic<Int>(0)

    /// One callback's render took `nanoseconds` (the audio thread only writes these).
    func count(nanoseconds: Int) {
        callbacks.add(1, ordering: .relaxed)
        totalNanoseconds.add(nanoseconds, ordering: .relaxed)
        if nanoseconds > longestNanoseconds.load(ordering: .relaxed) { longestNanoseconds.store(nanoseconds, ordering: .relaxed) }
    }

    init(engine: PlayerEngine) { self.engine = engine }

    /// Reads the calling thread's policy once (one system call, on the first callback).
    func noteScheduling() {
        var policy: Int32 = 0
        var parameters = sched_param()
        let realTime = pthread_getschedparam(pthread_self(), &policy, &parameters) == 0 && (policy == SCHED_FIFO || policy == SCHED_RR)
        schedulingPolicy.store(realTime ? 1 : 0, ordering: .releasing)
    }
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds (a vDSO call: no system call, no lock).
private func monotonicNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

/// The calling thread raised to `SCHED_FIFO` while PortAudio starts its threads, which inherit it.
private enum RealTimeScheduling {
    /// Runs `body` with the calling thread at ``AudioOutput/realTimePriority`` under `SCHED_FIFO` when
    /// `raise` is set and the system grants it, then restores the thread's scheduling.
    static func whileRaised<R>(_ raise: Bool, _ body: () -> R) -> R {
        guard raise else { return body() }
        let thread = pthread_self()
        var oldPolicy: Int32 = 0
        var old = sched_param()
        guard pthread_getschedparam(thread, &oldPolicy, &old) == 0 else { return body() }
        var asked = sched_param()
        asked.sched_priority = AudioOutput.realTimePriority
        let granted = pthread_setschedparam(thread, SCHED_FIFO, &asked) == 0
        defer { if granted { pthread_setschedparam(thread, oldPolicy, &old) } }
        return body()
    }
}

/// PortAudio's library calls outside a stream.
enum PortAudioLibrary {
    /// `Pa_Initialize`, its ALSA card-probing and JACK messages silenced (ALSA's for good: its
    /// "underrun occurred" lines while playing too; underruns are counted instead).
    static func initialize() throws(ShadesError) {
        shades_alsa_silence()
        let error = quietly { Pa_Initialize() }
        guard error == paNoError.rawValue else { throw .runtime("cannot start PortAudio: \(text(error))") }
    }

    /// `Pa_GetErrorText`.
    static func text(_ error: PaError) -> String { String(cString: Pa_GetErrorText(error)) }

    /// Runs `body` with standard error pointed at /dev/null: PortAudio's ALSA and JACK back ends print
    /// dozens of harmless probing lines while they look for devices (seen on every start). ALSA's go to
    /// a handler that drops them (CALSAQuiet); JACK's client library has no such switch here.
    static func quietly<R>(_ body: () -> R) -> R {
        let saved = dup(2)
        let null = Platform.open("/dev/null", O_WRONLY, 0)
        if saved >= 0 && null >= 0 { dup2(null, 2) }
        defer {
            if saved >= 0 { dup2(saved, 2); close(saved) }
            if null >= 0 { close(null) }
        }
        return body()
    }

    static func hostAPINames() -> [String] {
        (0..<max(0, Pa_GetHostApiCount())).compactMap { Pa_GetHostApiInfo($0).map { String(cString: $0.pointee.name) } }
    }

    /// PortAudio's devices that `make` keeps (index, info, host API name → a device or nil).
    static func devices<Device>(_ make: (PaDeviceIndex, PaDeviceInfo, String) -> Device?) -> [Device] {
        (0..<max(0, Pa_GetDeviceCount())).compactMap { i -> Device? in
            guard let info = Pa_GetDeviceInfo(i)?.pointee else { return nil }
            return make(i, info, Pa_GetHostApiInfo(info.hostApi).map { String(cString: $0.pointee.name) } ?? "?")
        }
    }

    static func outputDevices() -> [OutputDevice] {
        let defaultIndex = Pa_GetDefaultOutputDevice()
        return devices { i, info, api in
            guard info.maxOutputChannels > 0 else { return nil }
            return OutputDevice(index: Int(i), name: String(cString: info.name), hostAPI: api,
                                maximumOutputChannels: Int(info.maxOutputChannels), defaultSampleRate: info.defaultSampleRate,
                                defaultLowLatencySeconds: info.defaultLowOutputLatency, isDefault: i == defaultIndex)
        }
    }

    static func choose(_ choice: OutputDeviceChoice) throws(ShadesError) -> OutputDevice {
        try choose(choice, among: outputDevices(), index: \.index, name: \.name, defaultIndex: Pa_GetDefaultOutputDevice(), kind: "output")
    }

    /// The device `choice` names among `devices` (input or output, `kind`); the errors list the devices.
    static func choose<Device>(_ choice: OutputDeviceChoice, among devices: [Device], index: (Device) -> Int, name: (Device) -> String,
                               defaultIndex: PaDeviceIndex, kind: String) throws(ShadesError) -> Device {
        let tried = "\(String(cString: Pa_GetVersionText())), host APIs: \(hostAPINames().joined(separator: ", "))"
        guard !devices.isEmpty else {
            throw .runtime("no audio \(kind) device (\(tried); for PulseAudio set XDG_RUNTIME_DIR or PULSE_SERVER)")
        }
        let names = devices.map { "\(index($0)) '\(name($0))'" }.joined(separator: ", ")
        switch choice {
        case .systemDefault:
            guard defaultIndex != paNoDeviceIndex, let device = devices.first(where: { index($0) == Int(defaultIndex) }) else {
                throw .runtime("no default audio \(kind) device (\(tried); devices: \(names))")
            }
            return device
        case .index(let wanted):
            guard let device = devices.first(where: { index($0) == wanted }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("\(wanted)"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        case .name(let text):
            guard let device = devices.first(where: { name($0).lowercased().contains(text.lowercased()) }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("'\(text)'"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        }
    }
}

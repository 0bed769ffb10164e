import CPortAudio
import ShadesDSP
import ShadesPlatform
import Synchronization

private let paOutputUnderflowFlag: PaStreamCallbackFlags = 0x0000_0004

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

extension OutputDevice: PortAudioDevice {
    static let direction = PortAudioStream.Direction.output

    init(index: Int, info: PaDeviceInfo, hostAPI: String, isDefault: Bool) {
        self.init(index: index, name: String(cString: info.name), hostAPI: hostAPI,
                  maximumOutputChannels: Int(info.maxOutputChannels), defaultSampleRate: info.defaultSampleRate,
                  defaultLowLatencySeconds: info.defaultLowOutputLatency, isDefault: isDefault)
    }
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
    package var asksRealTime: Bool { stream.asksRealTime }
    private let stream: PortAudioStream
    private let state: CallbackState

    /// PortAudio's devices with output channels. Throws a runtime error when PortAudio cannot start.
    public static func devices() throws(ShadesError) -> [OutputDevice] { try PortAudioLibrary.listDevices() }

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
        let state = CallbackState(engine: engine)
        self.state = state
        var chosen: OutputDevice?
        stream = try PortAudioStream(.output, realTime: realTime) { () throws(ShadesError) in
            let device: OutputDevice = try PortAudioLibrary.choose(choice)
            chosen = device
            return PortAudioStream.Request(
                device: device.index, deviceName: device.name, hostAPI: device.hostAPI, channelCount: engine.channelCount,
                sampleRate: engine.sampleRate, bufferFrames: bufferFrames,
                suggestedLatencySeconds: max(2 * Double(bufferFrames) / engine.sampleRate, latencySeconds),
                callback: renderCallback, state: state)
        }
        device = chosen!
    }

    /// Starts the callbacks (`Pa_StartStream`).
    public func start() throws(ShadesError) { try stream.start() }

    /// Stops after the buffers already rendered have played (`Pa_StopStream`), and closes the stream.
    public func stop() { stream.stop() }

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
    public var latencySeconds: Double { stream.latencySeconds }
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


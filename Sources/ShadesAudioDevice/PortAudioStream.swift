import CPortAudio
import ShadesDSP
import ShadesPlatform

/// One PortAudio stream, input or output (`Pa_OpenStream` … `Pa_CloseStream`): float32, non-interleaved,
/// its callback a C function reaching its state through the user-data pointer. It holds PortAudio
/// initialised (`Pa_Initialize` … `Pa_Terminate`) and its callback's state alive for its whole life, so
/// the callback never outlives either.
///
/// Control calls (init, ``start()``, ``stop()``, deinit) from one thread.
final class PortAudioStream {
    /// Which way the samples go.
    enum Direction: String {
        case input, output
    }

    /// The stream callback, a C function (PortAudio's `PaStreamCallback`): input, output, frames, time,
    /// status flags, user data → `paContinue`, `paComplete` or `paAbort`.
    typealias Callback = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?, UInt, UnsafePointer<PaStreamCallbackTimeInfo>?,
                                         PaStreamCallbackFlags, UnsafeMutableRawPointer?) -> Int32

    /// What to open: the device, the stream's format and timing, and its callback.
    struct Request {
        /// PortAudio's device index.
        let device: Int
        let deviceName: String
        /// The device's host API (ALSA, JACK, …).
        let hostAPI: String
        let channelCount: Int
        /// Hz.
        let sampleRate: Double
        /// Frames per callback (the period).
        let bufferFrames: Int
        /// PortAudio's suggested latency (the device's buffer), seconds.
        let suggestedLatencySeconds: Double
        let callback: Callback
        /// What `callback` is given as its user data: kept alive by the stream.
        let state: AnyObject
    }

    /// Priority asked under `SCHED_FIFO` (1 … 99): above every normal thread, below the kernel's own
    /// real-time threads (50) and JACK's usual 70–80.
    static let realTimePriority: Int32 = 40

    let direction: Direction
    /// Whether the threads PortAudio starts are raised to real-time scheduling (``RealTimeScheduling``).
    let asksRealTime: Bool
    /// "audio input 'name'": how messages name the stream.
    private let label: String
    private let state: AnyObject
    private var stream: UnsafeMutableRawPointer?
    private var running = false

    /// Initialises PortAudio, asks `request` what to open (it may look at PortAudio's devices, and throw)
    /// and opens it, not yet started; PortAudio is terminated again when anything fails.
    /// - Parameter realTime: raise the threads PortAudio starts while opening and starting to `SCHED_FIFO`.
    init(_ direction: Direction, realTime: Bool, request: () throws(ShadesError) -> Request) throws(ShadesError) {
        self.direction = direction
        asksRealTime = realTime
        try PortAudioLibrary.initialize()
        do throws(ShadesError) {
            let r = try request()
            var parameters = PaStreamParameters(
                device: PaDeviceIndex(r.device), channelCount: Int32(r.channelCount),
                sampleFormat: paFloat32Format | paNonInterleavedFormat,
                suggestedLatency: r.suggestedLatencySeconds, hostApiSpecificStreamInfo: nil)
            var opened: UnsafeMutableRawPointer?
            let user = Unmanaged.passUnretained(r.state).toOpaque()
            let error = PortAudioLibrary.quietly {
                RealTimeScheduling.whileRaised(realTime) {
                    withUnsafePointer(to: &parameters) { p in
                        Pa_OpenStream(&opened, direction == .input ? p : nil, direction == .output ? p : nil,
                                      r.sampleRate, UInt(r.bufferFrames), paClipOffFlag, r.callback, user)
                    }
                }
            }
            guard error == paNoError.rawValue, let opened else {
                throw ShadesError.runtime("cannot open audio \(direction.rawValue) '\(r.deviceName)' (\(r.hostAPI)) at \(Int(r.sampleRate)) Hz, \(r.channelCount) channels: \(PortAudioLibrary.text(error))")
            }
            (stream, state, label) = (opened, r.state, "audio \(direction.rawValue) '\(r.deviceName)'")
        } catch {
            Pa_Terminate()
            throw error
        }
    }

    deinit {
        stop()
        Pa_Terminate()
    }

    /// Starts the callbacks (`Pa_StartStream`).
    func start() throws(ShadesError) {
        guard let stream, !running else { return }
        let error = PortAudioLibrary.quietly { RealTimeScheduling.whileRaised(asksRealTime) { Pa_StartStream(stream) } }
        guard error == paNoError.rawValue else {
            throw .runtime("cannot start \(label): \(PortAudioLibrary.text(error))")
        }
        running = true
    }

    /// Stops the callbacks (`Pa_StopStream`: after the buffers already given to the device have played) and
    /// closes the stream (`Pa_CloseStream`).
    func stop() {
        guard let stream else { return }
        if running { Pa_StopStream(stream) }
        Pa_CloseStream(stream)
        self.stream = nil
        running = false
    }

    /// The latency PortAudio reports for the open stream (`Pa_GetStreamInfo`), seconds; 0 once closed.
    var latencySeconds: Double {
        guard let stream, let info = Pa_GetStreamInfo(stream) else { return 0 }
        return direction == .input ? info.pointee.inputLatency : info.pointee.outputLatency
    }
}

/// The calling thread raised to `SCHED_FIFO` while PortAudio starts its threads, which inherit it.
private enum RealTimeScheduling {
    /// Runs `body` with the calling thread at ``PortAudioStream/realTimePriority`` under `SCHED_FIFO` when
    /// `raise` is set and the system grants it, then restores the thread's scheduling.
    static func whileRaised<R>(_ raise: Bool, _ body: () -> R) -> R {
        guard raise else { return body() }
        let thread = pthread_self()
        var oldPolicy: Int32 = 0
        var old = sched_param()
        guard pthread_getschedparam(thread, &oldPolicy, &old) == 0 else { return body() }
        var asked = sched_param()
        asked.sched_priority = PortAudioStream.realTimePriority
        let granted = pthread_setschedparam(thread, SCHED_FIFO, &asked) == 0
        defer { if granted { pthread_setschedparam(thread, oldPolicy, &old) } }
        return body()
    }
}


import CPortAudio
import ShadesDSP
import ShadesPlatform
import Synchronization

private let paInputOverflowFlag: PaStreamCallbackFlags = 0x0000_0002

/// An input device PortAudio offers (`Pa_GetDeviceInfo`).
package struct InputDevice: Sendable, Equatable {
    /// PortAudio's device index (what `--device N` chooses).
    package let index: Int
    package let name: String
    /// The host API it belongs to: ALSA, JACK, OSS, …
    package let hostAPI: String
    package let maximumInputChannels: Int
    /// Hz.
    package let defaultSampleRate: Double
    /// PortAudio's default input device.
    package let isDefault: Bool
}

extension InputDevice: PortAudioDevice {
    static let direction = PortAudioStream.Direction.input

    init(index: Int, info: PaDeviceInfo, hostAPI: String, isDefault: Bool) {
        self.init(index: index, name: String(cString: info.name), hostAPI: hostAPI,
                  maximumInputChannels: Int(info.maxInputChannels), defaultSampleRate: info.defaultSampleRate,
                  isDefault: isDefault)
    }
}

/// A PortAudio input stream (a microphone, a sound server's monitor) recorded into a lock-free ring: float32,
/// non-interleaved. Its callback (a C function; the ring passed through the user-data pointer) copies each
/// block into the ring, allocating nothing and taking no lock, and counts PortAudio's input overflows and
/// the frames a full ring dropped; a control thread takes the frames with ``read(into:)``.
///
/// Control calls (init, ``start()``, ``read(into:)``, ``stop()``, deinit) from one thread.
package final class AudioInput {
    package let device: InputDevice
    package let channelCount: Int
    package let sampleRate: Double
    private let ring: InputRing
    private let stream: PortAudioStream

    /// PortAudio's devices with input channels. Throws a runtime error when PortAudio cannot start.
    package static func devices() throws(ShadesError) -> [InputDevice] { try PortAudioLibrary.listDevices() }

    /// Opens `choice` for `channelCount` channels (nil: up to two, as many as the device has) at `sampleRate`,
    /// not yet started; the ring holds `ringSeconds` of audio.
    package init(device choice: OutputDeviceChoice = .systemDefault, channelCount: Int?, sampleRate: Double,
                 bufferFrames: Int = 1_024, ringSeconds: Double = 4) throws(ShadesError) {
        var opened: (device: InputDevice, ring: InputRing)?
        stream = try PortAudioStream(.input, realTime: false) { () throws(ShadesError) in
            let device: InputDevice = try PortAudioLibrary.choose(choice)
            let channels = channelCount ?? min(2, device.maximumInputChannels)
            guard (1...device.maximumInputChannels).contains(channels) else {
                throw ShadesError(.channels, .outOfRange, value: .text("\(channels)"),
                                  allowed: AllowedValues(note: "1 … \(device.maximumInputChannels) (the input device's)"))
            }
            let ring = InputRing(channelCount: channels, capacity: Int(ringSeconds * sampleRate))
            opened = (device, ring)
            return PortAudioStream.Request(
                device: device.index, deviceName: device.name, hostAPI: device.hostAPI, channelCount: channels,
                sampleRate: sampleRate, bufferFrames: bufferFrames, suggestedLatencySeconds: 2 * Double(bufferFrames) / sampleRate,
                callback: captureCallback, state: ring)
        }
        (device, ring) = opened!
        self.channelCount = ring.channelCount
        self.sampleRate = sampleRate
    }

    /// Starts the callbacks (`Pa_StartStream`).
    package func start() throws(ShadesError) { try stream.start() }

    /// Stops the callbacks and closes the stream (`Pa_StopStream`, `Pa_CloseStream`).
    package func stop() { stream.stop() }

    /// Moves the frames recorded so far (up to `buffer`'s capacity) into `buffer`; their count.
    package func read(into buffer: AudioBuffer) -> Int { ring.read(into: buffer) }

    /// Input overflows PortAudio reported (`paInputOverflow`: the device had data nobody took in time).
    package var overflows: Int { ring.overflows.load(ordering: .relaxed) }
    /// Frames lost because the ring was full (the control thread fell behind by more than the ring).
    package var droppedFrames: Int { ring.droppedFrames.load(ordering: .relaxed) }
}

/// The single-producer (the callback), single-consumer (the control thread) ring of planar Float frames.
private final class InputRing: @unchecked Sendable {
    let channelCount: Int
    let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Frames written and read since the start (the positions are these modulo the capacity).
    private let written = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)
    let overflows = Atomic<Int>(0)
    let droppedFrames = Atomic<Int>(0)

    init(channelCount: Int, capacity: Int) {
        (self.channelCount, self.capacity) = (channelCount, max(capacity, 4_096))
        storage = .allocate(capacity: channelCount * self.capacity)
        storage.initialize(repeating: 0, count: channelCount * self.capacity)
    }

    deinit { storage.deallocate() }

    /// Producer: appends `frames` frames of each channel, or drops them all when they do not fit.
    func write(_ channels: UnsafePointer<UnsafePointer<Float>>, frames: Int) {
        let w = written.load(ordering: .relaxed)
        guard frames <= capacity - (w - taken.load(ordering: .acquiring)) else {
            droppedFrames.add(frames, ordering: .relaxed)
            return
        }
        let start = w % capacity, first = min(frames, capacity - start)
        for c in 0..<channelCount {
            let ring = storage + c * capacity
            (ring + start).update(from: channels[c], count: first)
            if first < frames { ring.update(from: channels[c] + first, count: frames - first) }
        }
        written.store(w + frames, ordering: .releasing)
    }

    /// Consumer: moves up to `buffer.frameCapacity` frames into `buffer`; their count.
    func read(into buffer: AudioBuffer) -> Int {
        let r = taken.load(ordering: .relaxed)
        let frames = min(written.load(ordering: .acquiring) - r, buffer.frameCapacity)
        guard frames > 0 else { return 0 }
        let start = r % capacity, first = min(frames, capacity - start)
        for c in 0..<min(channelCount, buffer.channelCount) {
            let ring = storage + c * capacity
            buffer.withChannel(c) { out in
                out.baseAddress!.update(from: ring + start, count: first)
                if first < frames { (out.baseAddress! + first).update(from: ring, count: frames - first) }
            }
        }
        taken.store(r + frames, ordering: .releasing)
        return frames
    }
}

/// The capture callback: PortAudio's non-interleaved input is an array of one `const float *` per channel.
private func captureCallback(_ input: UnsafeRawPointer?, _ output: UnsafeMutableRawPointer?, _ frameCount: UInt,
                             _ time: UnsafePointer<PaStreamCallbackTimeInfo>?, _ flags: PaStreamCallbackFlags,
                             _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let input, let user else { return Int32(paContinue.rawValue) }
    let ring = Unmanaged<InputRing>.fromOpaque(user).takeUnretainedValue()
    if flags & paInputOverflowFlag != 0 { ring.overflows.add(1, ordering: .relaxed) }
    ring.write(input.assumingMemoryBound(to: UnsafePointer<Float>.self), frames: Int(frameCount))
    return Int32(paContinue.rawValue)
}

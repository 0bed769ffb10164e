import Dispatch
import Synchronization
import ShadesDSP

/// The sources a sink renders, in groups: each group is one source of one or more signals (its channels),
/// rendered on a thread of its own; the signals are the groups' channels in order.
package struct SourceGroups: @unchecked Sendable {
    /// Channels of each group.
    package let channelCounts: [Int]
    private let make: @Sendable (Int) -> any AudioSource

    /// Groups made when a pass starts, each on its own thread (`make(g)` must return a fresh source with
    /// `channelCounts[g]` channels).
    package init(channelCounts: [Int], make: @escaping @Sendable (_ group: Int) -> any AudioSource) {
        (self.channelCounts, self.make) = (channelCounts, make)
    }

    /// Sources made already (one pass only: each is rendered from where it stands).
    package init(_ sources: [any AudioSource]) {
        let box = SourceBox(sources)
        self.init(channelCounts: sources.map(\.channelCount)) { box.sources[$0] }
    }

    package var count: Int { channelCounts.count }
    package var signalCount: Int { channelCounts.reduce(0, +) }
    /// The first signal of group `g`.
    func firstSignal(ofGroup g: Int) -> Int { channelCounts[..<g].reduce(0, +) }
    func source(_ g: Int) -> any AudioSource { make(g) }
}

/// Sources handed to the threads that render them (each is used by one thread only).
private final class SourceBox: @unchecked Sendable {
    let sources: [any AudioSource]
    init(_ sources: [any AudioSource]) { self.sources = sources }
}

/// How many frames a measuring pass renders.
package enum PassLength {
    case frames(Int)
    /// Until `file` has ended (a decoded file whose length is known only at its end): its frames.
    case untilEndOf(AudioFileSource)
}

/// The one place a sound becomes a file: signals rendered chunk by chunk (each group of signals on its own
/// thread), optionally measured, times their gains, quantised (16-bit with TPDF dither: exact zeros stay
/// zero; s24 and f32 as Float, converted by libsndfile), interleaved into the output channels and written
/// through libsndfile into a temporary file that appears under its name only when complete
/// (``AtomicFile``). Memory stays a few chunks however long the file, and the bytes do not depend on
/// thread timing (each signal has its own dither stream).
///
/// The gain policy is the caller's: exact RMS (`Renderer`), loudness (the catalogue) or a true-peak
/// ceiling (notched music), each decided from a measuring pass (``measure(_:length:meters:chunkFrames:)``)
/// or, for a stream whose level is known in expectation, measured while written and written again only
/// when it landed off.
package struct FileSink: Sendable {
    package let path: String
    package let format: AudioFileFormat
    /// Sample rate of the file, Hz.
    package let sampleRate: Int
    /// The signal each output channel carries (nil: a silent channel).
    package let channelMap: [Int?]
    /// TPDF dither stream of each signal (16-bit output).
    package let ditherKeys: [UInt64]
    /// The file's comment tag (the generating parameters).
    package let comment: String?
    /// Frames per chunk rendered, measured and written.
    package let chunkFrames: Int
    /// 5.5 s at 48 kHz: 1 MB of Float per signal. Measured on 10-minute stereo white noise, 2 cores:
    /// 16,384 → 102 ms, 65,536 → 81 ms, 262,144 → 69 ms, 1,048,576 → 97 ms (fewer hand-offs between the
    /// threads, still in the 2 MB cache).
    package static let defaultChunkFrames = 262_144

    /// A sink writing `path` (WAV or FLAC by extension) in `sampleFormat`.
    package init(path: String, sampleFormat: SampleFormat, sampleRate: Int, channelMap: [Int?], ditherKeys: [UInt64],
                comment: String?, chunkFrames: Int = FileSink.defaultChunkFrames) throws(ShadesError) {
        format = try AudioFileFormat(container: try Container(path: path), sampleFormat: sampleFormat)
        self.path = path
        self.sampleRate = sampleRate
        self.channelMap = channelMap
        self.ditherKeys = ditherKeys
        self.comment = comment
        self.chunkFrames = chunkFrames
    }

    /// Writes the file atomically: `body` writes it once or more through the ``Writer`` (a later write
    /// replaces an earlier one); the file appears under its name when `body` returns, and nothing is left
    /// when it throws.
    package func create<R>(_ body: (Writer) throws(ShadesError) -> R) throws(ShadesError) -> R {
        try AtomicFile.write(to: path) { (temporary: AtomicFile.Temporary) throws(ShadesError) -> R in
            try body(Writer(sink: self, temporary: temporary))
        }
    }

    /// Writes the file once, atomically, at `gains` (one per signal); returns the level written.
    @discardableResult
    package func write(_ groups: SourceGroups, frames: Int, gains: [Float]) throws(ShadesError) -> WrittenLevel {
        try create { (writer: Writer) throws(ShadesError) in
            try writer.write(groups, frames: frames, gains: gains, meters: [SignalMeasurement]?.none).written
        }
    }

    /// Writes into the temporary file ``FileSink/create(_:)`` lends.
    package struct Writer {
        let sink: FileSink
        let temporary: AtomicFile.Temporary

        /// Renders `frames` frames of `groups` at `gains` (linear, one per signal) and writes them; with
        /// `meters` (one per signal), measures each signal before its gain and returns the meters. Also
        /// returns the level of the samples handed to the file.
        package func write<M: SampleMeter>(_ groups: SourceGroups, frames: Int, gains: [Float],
                                          meters: [M]?) throws(ShadesError) -> (meters: [M]?, written: WrittenLevel) {
            precondition(gains.count == groups.signalCount && sink.ditherKeys.count == groups.signalCount,
                         "one gain and one dither key per signal")
            let output = try AudioFileOutput(file: temporary, sampleRate: sink.sampleRate, channelCount: sink.channelMap.count,
                                             format: sink.format, frameCount: frames, comment: sink.comment)
            let engine = WriteEngine(sink: sink, groups: groups, frames: frames, gains: gains, meters: meters)
            try engine.run(into: output)
            try output.close()
            return (engine.meters, engine.writtenLevel(channelMap: sink.channelMap))
        }
    }

    /// A measuring pass: renders `groups` chunk by chunk (groups in parallel when the length is known) and
    /// feeds each signal's meter; nothing is kept. Returns the meters and the frames measured.
    package static func measure<M: SampleMeter>(_ groups: SourceGroups, length: PassLength, meters: [M],
                                               chunkFrames: Int = FileSink.defaultChunkFrames) -> (meters: [M], frames: Int) {
        precondition(meters.count == groups.signalCount, "one meter per signal")
        switch length {
        case .frames(let frames):
            let results = ResultSlots<[M]>(count: groups.count)
            DispatchQueue.concurrentPerform(iterations: groups.count) { g in
                let source = groups.source(g)
                let first = groups.firstSignal(ofGroup: g)
                var own = Array(meters[first..<first + groups.channelCounts[g]])
                let scratch = AudioBuffer(channelCount: source.channelCount, frameCapacity: chunkFrames, zeroed: false)
                for start in stride(from: 0, to: frames, by: chunkFrames) {
                    scratch.withBlock(frames: 0..<min(chunkFrames, frames - start)) { block in
                        source.render(into: block)
                        for c in own.indices { own[c].add(UnsafeBufferPointer(block.channel(c))) }
                    }
                }
                results[g] = own
            }
            return (results.values.flatMap { $0 }, frames)
        case .untilEndOf(let file):
            let sources = (0..<groups.count).map { groups.source($0) }
            var meters = meters
            let scratch = sources.map { AudioBuffer(channelCount: $0.channelCount, frameCapacity: chunkFrames, zeroed: false) }
            var done = 0
            while true {
                for (g, source) in sources.enumerated() { scratch[g].withBlock { source.render(into: $0) } }
                // Rendering reaches the file's end before the chunk that holds it is complete (modifiers
                // render ahead or not at all): cut the chunk there.
                let n = max(0, min(chunkFrames, (file.frameCount ?? Int.max) - done))
                for g in sources.indices {
                    let first = groups.firstSignal(ofGroup: g)
                    for c in 0..<groups.channelCounts[g] {
                        scratch[g].withChannel(c) { meters[first + c].add(UnsafeBufferPointer(rebasing: $0[0..<n])) }
                    }
                }
                done += n
                if n < chunkFrames { return (meters, done) }
            }
        }
    }
}

/// The level of the samples a write handed to the file, measured as they were written (16-bit: the
/// integers themselves; 24-bit and float: the Float values libsndfile converts), so a caller need not read
/// the file back.
package struct WrittenLevel: Sendable, Equatable {
    /// RMS of the sounding channels' mean power, dBFS (nil: every channel silent): the level an RMS
    /// ``LevelPolicy`` asks for, whether each channel has it (a generator) or only their mean (a mix, a
    /// sound per ear, a stereo file: their balance kept).
    package let rmsDBFS: Double?
    /// RMS of each output channel, dBFS (nil: a silent channel).
    package let channelRMSDBFS: [Double?]
    /// Largest |sample| over all channels, dBFS (nil: silent).
    package let samplePeakDBFS: Double?

    /// The level of the signals measured in `perSignal` (sums of squares and peaks in full-scale units)
    /// over `frames` frames, written to the output channels of `channelMap` (a signal index per channel,
    /// nil for a silent channel).
    init(perSignal: [SignalMeasurement], frames: Int, channelMap: [Int?]) {
        func dBFS(_ sumOfSquares: Double) -> Double? {
            frames > 0 && sumOfSquares > 0 ? Decibels.fromPower(sumOfSquares / Double(frames)) : nil
        }
        let sounding = Set(channelMap.compactMap { $0 }).sorted().map { perSignal[$0] }
        rmsDBFS = dBFS(sounding.map(\.sumOfSquares).reduce(0, +) / Double(max(1, sounding.count)))
        channelRMSDBFS = channelMap.map { signal in signal.flatMap { dBFS(perSignal[$0].sumOfSquares) } }
        let peak = sounding.map(\.peak).max() ?? 0
        samplePeakDBFS = peak > 0 ? Decibels.fromAmplitude(Double(peak)) : nil
    }
}

/// One write: one worker thread per group renders a chunk, measures it if asked, applies each signal's
/// gain and quantises it into a slot of a ring; the calling thread interleaves each finished chunk and
/// hands it to libsndfile while the workers make the next.
private final class WriteEngine<M: SampleMeter>: @unchecked Sendable {
    private let sink: FileSink
    private let groups: SourceGroups
    private let frames: Int
    private let gains: [Float]
    private let chunkCount: Int
    private let sixteen: Bool
    private let planes16: UnsafeMutablePointer<Int16>     // [slot][signal][frame]
    private let planesFloat: UnsafeMutablePointer<Float>
    private let filled: [[DispatchSemaphore]]             // [slot][group]
    private let free: [[DispatchSemaphore]]
    private let cancelled = Atomic<Bool>(false)
    private let measured: ResultSlots<[M]>?
    private let startMeters: [M]?
    /// Each group's signals as written (after gain and quantisation).
    private let written: ResultSlots<[SignalMeasurement]>

    private static var slots: Int { 3 }

    init(sink: FileSink, groups: SourceGroups, frames: Int, gains: [Float], meters: [M]?) {
        self.sink = sink
        self.groups = groups
        self.frames = frames
        self.gains = gains
        chunkCount = (frames + sink.chunkFrames - 1) / sink.chunkFrames
        sixteen = sink.format.sampleFormat == .s16
        let planeCount = Self.slots * groups.signalCount * sink.chunkFrames
        planes16 = .allocate(capacity: sixteen ? planeCount : 1)
        planesFloat = .allocate(capacity: sixteen ? 1 : planeCount)
        filled = (0..<Self.slots).map { _ in (0..<groups.count).map { _ in DispatchSemaphore(value: 0) } }
        free = (0..<Self.slots).map { _ in (0..<groups.count).map { _ in DispatchSemaphore(value: 1) } }
        startMeters = meters
        measured = meters.map { _ in ResultSlots(count: groups.count) }
        written = ResultSlots(count: groups.count)
    }

    deinit {
        planes16.deallocate()
        planesFloat.deallocate()
    }

    /// What each signal measured before its gain (after ``run(into:)``), or nil.
    var meters: [M]? { measured?.values.flatMap { $0 } }

    /// The level written to the output channels of `channelMap` (after ``run(into:)``).
    func writtenLevel(channelMap: [Int?]) -> WrittenLevel {
        WrittenLevel(perSignal: written.values.flatMap { $0 }, frames: frames, channelMap: channelMap)
    }

    private func planeOffset(slot: Int, signal: Int) -> Int { (slot * groups.signalCount + signal) * sink.chunkFrames }

    func run(into output: AudioFileOutput) throws(ShadesError) {
        let group = DispatchGroup()
        for g in 0..<groups.count {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { self.work(group: g) }
        }
        let channels = sink.channelMap.count
        let chunk = sink.chunkFrames
        let interleaved16 = UnsafeMutablePointer<Int16>.allocate(capacity: sixteen ? chunk * channels : 1)
        let interleavedFloat = UnsafeMutablePointer<Float>.allocate(capacity: sixteen ? 1 : chunk * channels)
        defer {
            interleaved16.deallocate()
            interleavedFloat.deallocate()
        }
        do throws(ShadesError) {
            for k in 0..<chunkCount {
                let slot = k % Self.slots
                let n = min(chunk, frames - k * chunk)
                for g in 0..<groups.count { filled[slot][g].wait() }
                if sixteen {
                    Interleave.frames(sink.channelMap.map { $0.map { UnsafePointer(planes16 + planeOffset(slot: slot, signal: $0)) } },
                                      frames: n, into: interleaved16)
                } else {
                    Interleave.frames(sink.channelMap.map { $0.map { UnsafePointer(planesFloat + planeOffset(slot: slot, signal: $0)) } },
                                      frames: n, into: interleavedFloat)
                }
                for g in 0..<groups.count { free[slot][g].signal() }
                if sixteen {
                    try output.write(UnsafeBufferPointer(start: interleaved16, count: n * channels))
                } else {
                    try output.write(UnsafeBufferPointer(start: interleavedFloat, count: n * channels))
                }
            }
        } catch {
            cancelled.store(true, ordering: .relaxed)
            // Twice: a worker three chunks ahead takes one signal to wake and return, and libdispatch
            // crashes (SIGILL) when a semaphore is freed below its initial value (seen on a full disk).
            for slot in free { for semaphore in slot { semaphore.signal(); semaphore.signal() } }
            group.wait()
            throw error
        }
        group.wait()
    }

    private func work(group g: Int) {
        let source = groups.source(g)
        let first = groups.firstSignal(ofGroup: g)
        let channels = groups.channelCounts[g]
        var quantizers = (0..<channels).map { SignalQuantizer(ditherKey: sink.ditherKeys[first + $0]) }
        let scratch = AudioBuffer(channelCount: channels, frameCapacity: sink.chunkFrames, zeroed: false)
        var meters = startMeters.map { Array($0[first..<first + channels]) }
        var writtenLevels = Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: channels)
        defer {
            if let meters { measured?[g] = meters }
            written[g] = writtenLevels
        }
        for k in 0..<chunkCount {
            let slot = k % Self.slots
            free[slot][g].wait()
            if cancelled.load(ordering: .relaxed) { return }
            let n = min(sink.chunkFrames, frames - k * sink.chunkFrames)
            scratch.withBlock(frames: 0..<n) { block in
                source.render(into: block)
                for c in 0..<channels {
                    let samples = UnsafeBufferPointer(block.channel(c))
                    let offset = planeOffset(slot: slot, signal: first + c)
                    if sixteen {
                        let plane = UnsafeMutableBufferPointer(start: planes16 + offset, count: n)
                        let chunk = meters == nil ? quantizers[c].quantize16(samples, gain: gains[first + c], into: plane)
                                                  : quantizers[c].quantize16(samples, gain: gains[first + c], into: plane, measuring: &meters![c])
                        writtenLevels[c].sumOfSquares += chunk.sumOfSquares
                        writtenLevels[c].peak = max(writtenLevels[c].peak, chunk.peak)
                    } else {
                        meters?[c].add(samples)
                        let plane = UnsafeMutableBufferPointer(start: planesFloat + offset, count: n)
                        SignalQuantizer.scale(samples, gain: gains[first + c], into: plane)
                        writtenLevels[c].add(UnsafeBufferPointer(plane))
                    }
                }
            }
            filled[slot][g].signal()
        }
    }
}

extension FileSink {
    /// Writes `buffer`'s channels, each times its gain (linear), to `path` in `sampleFormat`, atomically;
    /// channel c is dithered with the stream `ditherKey &+ c`.
    package static func write(_ buffer: AudioBuffer, sampleRate: Int, gains: [Float], to path: String,
                             sampleFormat: SampleFormat, ditherKey: UInt64, comment: String?) throws(ShadesError) {
        let channels = buffer.channelCount
        let sink = try FileSink(path: path, sampleFormat: sampleFormat, sampleRate: sampleRate, channelMap: Array(0..<channels),
                                ditherKeys: (0..<channels).map { ditherKey &+ UInt64($0) }, comment: comment)
        try sink.write(SourceGroups([BufferSource(buffer: buffer, sampleRate: Double(sampleRate))]),
                       frames: buffer.frameCapacity, gains: gains)
    }
}

extension FileSink {
    /// Writes `frames` frames of any `source` (every channel times `gain`, linear) to `path` (WAV or
    /// FLAC by extension) in `sampleFormat`, atomically; 16-bit output is dithered per channel from
    /// `seed`. The caller has checked that nothing clips.
    package static func write(_ source: any AudioSource, frames: Int, to path: String, sampleFormat: SampleFormat,
                             gain: Float = 1, seed: UInt64 = 1, comment: String? = nil) throws(ShadesError) {
        let channels = source.channelCount
        let sink = try FileSink(path: path, sampleFormat: sampleFormat, sampleRate: Int(source.sampleRate.rounded()),
                                channelMap: Array(0..<channels),
                                ditherKeys: (0..<channels).map { SeedStream.dither.key(seed: seed, channel: $0) }, comment: comment)
        try sink.write(SourceGroups([source]), frames: frames, gains: Array(repeating: gain, count: channels))
    }
}

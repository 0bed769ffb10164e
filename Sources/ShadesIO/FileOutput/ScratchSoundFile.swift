import Dispatch
import ShadesDSP
import ShadesPlatform

/// A float WAV written once and read back once: a stream kept between two passes of a job instead of
/// being computed twice (`shades notch`: the decoded, resampled and notched music, measured in the first
/// pass and written at its gain in the second).
///
/// It lives in the temporary folder (`TMPDIR`, else /tmp). On Linux it is unnamed (O_TMPFILE) and read
/// back through its `/proc/self/fd` name, so nothing is left however the process ends; elsewhere it is a
/// named file, removed when this object goes. It is not synced: it is scratch, never the output.
///
/// A writer thread of its own hands the frames to libsndfile (``append(_:)`` only interleaves them into
/// a ring of four chunks): the write calls, most of them the kernel copying into its page cache, then run
/// beside the pass that makes the stream instead of in it. ``append(_:)`` allocates nothing and waits only
/// when the writer is four chunks behind. A write that fails (a full disk) ends the writing and is thrown
/// by ``finishWriting()``, so the caller can fall back to computing the stream again.
package final class ScratchSoundFile {
    package let channelCount: Int
    package let sampleRate: Int
    /// Frames appended.
    package private(set) var frames = 0
    /// The path to read the finished file from (``finishWriting()``).
    package let readPath: String

    private let descriptor: Int32
    private let named: String?
    private var writer: ScratchWriter?
    private let chunkFrames: Int
    /// The chunk being filled (its slot taken from the writer once `filled` > 0), and its frames so far.
    private var slot = 0, filled = 0

    /// A new empty scratch file for `channelCount` channels at `sampleRate` Hz; about `expectedFrames`
    /// frames are reserved on disk (a disk too small fails here).
    package init(channelCount: Int, sampleRate: Int, expectedFrames: Int, chunkFrames: Int = 131_072) throws(ShadesError) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.chunkFrames = chunkFrames
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var name: String?
        let descriptor: Int32
        if let unnamed = try FileSystem.openUnnamed(inFolder: folder) {
            descriptor = unnamed
        } else {
            var created: (Int32, String)?
            for attempt in 0..<100 where created == nil {
                let path = "\(folder)/.shades-scratch-\(getpid())-\(attempt).wav"
                if let d = try? FileSystem.open(path, O_CREAT | O_EXCL | O_WRONLY, mode: 0o600) { created = (d, path) }
            }
            guard let created else { throw .runtime("cannot create a scratch file in \(folder)") }
            (descriptor, name) = created
            // A named scratch file goes with an interrupt too (Ctrl-C exits without running deinit).
            InterruptCleanup.register(created.1, .file)
        }
        self.descriptor = descriptor
        named = name
        readPath = name ?? "/proc/self/fd/\(descriptor)"
        do throws(ShadesError) {
            let output = try SoundFile.create(file: AtomicFile.Temporary(path: "a scratch file in \(folder)", descriptor: descriptor),
                                              sampleRate: sampleRate, channelCount: channelCount,
                                              format: try AudioFileFormat(container: .wav, sampleFormat: .f32),
                                              frameCount: expectedFrames, startsWriteback: false)
            writer = ScratchWriter(file: output, channelCount: channelCount, chunkFrames: chunkFrames)
        } catch {
            FileSystem.close(descriptor)
            if let name {
                try? FileSystem.unlink(name)
                InterruptCleanup.forget(name)
            }
            throw error
        }
    }

    deinit {
        if let writer { try? writer.finish(filling: slot, frames: filled) }
        FileSystem.close(descriptor)
        if let named {
            try? FileSystem.unlink(named)
            InterruptCleanup.forget(named)
        }
    }

    /// Appends every frame of `block` (its channel count must be this file's).
    package func append(_ block: AudioBlock) {
        guard let writer else { return }
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        var done = 0
        while done < block.frameCount {
            if filled == 0 { slot = writer.takeSlot() }
            let n = min(chunkFrames - filled, block.frameCount - done)
            let output = writer.slot(slot) + filled * channelCount
            if channelCount == 2 {
                Kernels.interleaveStereo(left: block.channel(0).baseAddress! + done, right: block.channel(1).baseAddress! + done,
                                         frames: n, into: output)
            } else {
                for c in 0..<channelCount {
                    let samples = block.channel(c).baseAddress! + done
                    for i in 0..<n { output[i * channelCount + c] = samples[i] }
                }
            }
            filled += n
            done += n
            if filled == chunkFrames {
                writer.hand(slot, frames: filled)
                filled = 0
            }
        }
        frames += block.frameCount
    }

    /// Finishes the file (its header) so it can be read from ``readPath``; throws what stopped the writing.
    package func finishWriting() throws(ShadesError) {
        guard let writer else { return }
        self.writer = nil
        try writer.finish(filling: slot, frames: filled)
    }
}

/// The scratch file's writer thread and the ring of interleaved chunks it writes, handed over in order
/// with two semaphores.
private final class ScratchWriter: @unchecked Sendable {
    /// Four chunks of 131,072 frames by default (4 MB of stereo): seconds of sound, but only milliseconds of
    /// a pass that runs a thousand times faster than real time, a few of a scheduler's time slices: room for
    /// a writer thread that another process has preempted.
    static let slotCount = 4

    private let file: SoundFile
    private let channelCount: Int
    private let chunkFrames: Int
    private let slots: UnsafeMutablePointer<Float>
    /// Frames in each handed slot; 0 ends the writer.
    private let frames: UnsafeMutablePointer<Int>
    private let handed = DispatchSemaphore(value: 0)
    /// Free slots. Created at 0 and signalled `slotCount` times (libdispatch stops the process when a
    /// semaphore goes away below the value it was created with).
    private let free = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The first failed write (the writer's; read after `finished`).
    private var failure: ShadesError?
    private var nextSlot = 0

    init(file: SoundFile, channelCount: Int, chunkFrames: Int) {
        (self.file, self.channelCount, self.chunkFrames) = (file, channelCount, chunkFrames)
        slots = .allocate(capacity: Self.slotCount * chunkFrames * channelCount)
        frames = .allocate(capacity: Self.slotCount)
        frames.initialize(repeating: 0, count: Self.slotCount)
        for _ in 0..<Self.slotCount { free.signal() }
        DedicatedThread.start { [self] in
            var slot = 0
            while true {
                handed.wait()
                let n = frames[slot]
                if n == 0 { break }
                if failure == nil {
                    do throws(ShadesError) {
                        try file.write(interleaved: UnsafeBufferPointer(start: self.slot(slot), count: n * channelCount))
                    } catch {
                        failure = error
                    }
                }
                free.signal()
                slot = (slot + 1) % Self.slotCount
            }
            finished.signal()
        }
    }

    deinit {
        slots.deallocate()
        frames.deallocate()
    }

    /// The interleaved frames of `slot`.
    func slot(_ slot: Int) -> UnsafeMutablePointer<Float> { slots + slot * chunkFrames * channelCount }

    /// The next slot to fill, once the writer has written what it held.
    func takeSlot() -> Int {
        free.wait()
        defer { nextSlot = (nextSlot + 1) % Self.slotCount }
        return nextSlot
    }

    /// Hands `slot` (from ``takeSlot()``) holding `frames` frames to the writer.
    func hand(_ slot: Int, frames count: Int) {
        frames[slot] = count
        handed.signal()
    }

    /// Hands `slot`, being filled, with its `frames` frames (0: none taken), ends the writer, waits for it
    /// and closes the file; throws the first failed write or the close's error.
    func finish(filling slot: Int, frames count: Int) throws(ShadesError) {
        if count > 0 { hand(slot, frames: count) }
        hand(takeSlot(), frames: 0)
        finished.wait()
        if let failure {
            try? file.close()
            throw failure
        }
        try file.close()
    }
}

import ShadesDSP
import ShadesPlatform

/// A float WAV written once and read back once: a stream kept between two passes of a job instead of
/// being computed twice (`shades notch`: the decoded, resampled and notched music, measured in the first
/// pass and written at its gain in the second).
///
/// It lives in the temporary folder (`TMPDIR`, else /tmp). On Linux it is unnamed (O_TMPFILE) and read
/// back through its `/proc/self/fd` name, so nothing is left however the process ends; elsewhere it is a
/// named file, removed when this object goes. It is not synced: it is scratch, never the output.
/// ``append(_:)`` allocates nothing; a write that fails (a full disk) is kept in ``failure`` and ends the
/// writing, so the caller can fall back to computing the stream again.
package final class ScratchSoundFile {
    package let channelCount: Int
    package let sampleRate: Int
    /// Frames appended.
    package private(set) var frames = 0
    /// Why writing stopped (the file is then unusable), or nil.
    package private(set) var failure: ShadesError?
    /// The path to read the finished file from (``finishWriting()``).
    package let readPath: String

    private let descriptor: Int32
    private let named: String?
    private var file: SoundFile?
    private let interleaved: UnsafeMutablePointer<Float>
    private let chunkFrames: Int

    /// A new empty scratch file for `channelCount` channels at `sampleRate` Hz; about `expectedFrames`
    /// frames are reserved on disk (a disk too small fails here).
    package init(channelCount: Int, sampleRate: Int, expectedFrames: Int, chunkFrames: Int = 16_384) throws(ShadesError) {
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
        interleaved = .allocate(capacity: chunkFrames * channelCount)
        do throws(ShadesError) {
            let output = try SoundFile.create(file: AtomicFile.Temporary(path: "a scratch file in \(folder)", descriptor: descriptor),
                                              sampleRate: sampleRate, channelCount: channelCount,
                                              format: try AudioFileFormat(container: .wav, sampleFormat: .f32),
                                              frameCount: expectedFrames, startsWriteback: false)
            file = output
        } catch {
            interleaved.deallocate()
            FileSystem.close(descriptor)
            if let name {
                try? FileSystem.unlink(name)
                InterruptCleanup.forget(name)
            }
            throw error
        }
    }

    deinit {
        if let file { try? file.close() }
        interleaved.deallocate()
        FileSystem.close(descriptor)
        if let named {
            try? FileSystem.unlink(named)
            InterruptCleanup.forget(named)
        }
    }

    /// Appends every frame of `block` (its channel count must be this file's).
    package func append(_ block: AudioBlock) {
        guard failure == nil, let file else { return }
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        var done = 0
        while done < block.frameCount {
            let n = min(chunkFrames, block.frameCount - done)
            for c in 0..<channelCount {
                let samples = block.channel(c).baseAddress! + done
                for i in 0..<n { interleaved[i * channelCount + c] = samples[i] }
            }
            do throws(ShadesError) {
                try file.write(interleaved: UnsafeBufferPointer(start: interleaved, count: n * channelCount))
            } catch {
                failure = error
                return
            }
            done += n
        }
        frames += block.frameCount
    }

    /// Finishes the file (its header) so it can be read from ``readPath``; throws what stopped the writing.
    package func finishWriting() throws(ShadesError) {
        if let failure { throw failure }
        guard let file else { return }
        self.file = nil
        try file.close()
    }
}

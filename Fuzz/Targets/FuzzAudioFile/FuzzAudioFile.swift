#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzSupport
import ShadesDSP
import ShadesIO

/// A sound file as `shades analyze`, `shades notch` and the catalogue read it: the bytes are written to a
/// temporary file, opened with `AudioFileInput` (libsndfile, then Shades' own checks of the header) and
/// read to the end in blocks of changing sizes. Any bytes either read as exactly the frames the header
/// announces or fail with one error naming the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let path = ScratchFile.shared.write(input.bytes)
    let file: AudioFileInput
    do throws(ShadesError) {
        file = try AudioFileInput(path: path)
    } catch {
        require(error.description.contains(path), "error does not name the file: \(error)")
        return 0
    }
    require(file.channelCount > 0 && file.sampleRate > 0 && file.frameCount > 0, "accepted an empty header")
    _ = file.containerName
    _ = file.comment
    // Block sizes cycle through awkward counts; the buffer is the largest of them.
    let sizes = [1, 7, 4_096, 333]
    let buffer = AudioBuffer(channelCount: file.channelCount, frameCapacity: sizes.max()!, zeroed: false)
    var call = 0, total = 0
    do throws(ShadesError) {
        while true {
            let frames = sizes[call % sizes.count]
            call += 1
            let got = try buffer.withBlock(frames: 0..<frames) { (block: AudioBlock) throws(ShadesError) in try file.read(into: block) }
            require(got >= 0 && got <= frames, "read \(got) frames into a block of \(frames)")
            if got == 0 { break }
            total += got
        }
        require(file.framesRead == total, "counted \(file.framesRead) frames, read \(total)")
        if file.lengthIsExact {
            require(total == file.frameCount, "read \(total) frames, the header announces \(file.frameCount)")
        } else {
            // An MP3's or Ogg's header only estimates its length (libsndfile never decodes more); a stream
            // that announces none (Int.max, a cut-off Ogg) is read as far as it goes, with a warning.
            require(total <= file.frameCount, "read \(total) frames, more than the \(file.frameCount) the header estimates")
            if file.frameCount == Int.max { require(file.lengthWarning != nil, "no length announced and no warning") }
        }
    } catch {
        require(error.description.contains(path), "error does not name the file: \(error)")
    }
    return 0
}

/// One temporary file per process, rewritten for every input.
private final class ScratchFile: @unchecked Sendable {
    static let shared = ScratchFile()
    let path: String
    private let descriptor: Int32

    private init() {
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(folder)/shades-fuzz-audio-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(descriptor >= 0, "cannot create a temporary file in \(folder)")
        path = String(cString: template)
        // Removed at exit; the path stays valid while the process runs.
        atexit { unlink(ScratchFile.shared.path) }
    }

    /// Replaces the file's contents with `bytes`; returns its path.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        precondition(ftruncate(descriptor, 0) == 0)
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(done))
            precondition(n > 0, "cannot write the temporary file")
            done += n
        }
        return path
    }
}

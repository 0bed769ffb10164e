import ShadesDSP
import ShadesPlatform

/// A WAV stream on a pipe or terminal (`shades render … -o -`): a 44-byte header whose RIFF and data sizes
/// are 0xFFFFFFFF (the streaming convention aplay, paplay, SoX and FFmpeg read as "until the end"), then
/// interleaved samples, 16-bit with TPDF dither or 32-bit float.
///
/// Not through libsndfile, unlike every file: libsndfile 1.2 refuses to write WAV to a pipe
/// (`sf_open_fd` on a pipe: "this file format does not support pipe write"), and through its virtual
/// I/O it would write the sizes it knows at the start (zero) and seek back at the end, which a pipe cannot.
package enum WAVStream {
    /// How a stream ended.
    package enum Ending: Equatable, Sendable {
        /// All frames written.
        case complete
        /// The reader went away (EPIPE): not an error for a stream.
        case readerClosed
    }

    /// The 44-byte header: PCM 16-bit (format 1) or IEEE float 32-bit (format 3), sizes 0xFFFFFFFF.
    package static func header(sampleRate: Int, channelCount: Int, sampleFormat: SampleFormat) -> [UInt8] {
        precondition(sampleFormat != .s24, "WAV streams are s16 or f32")
        let bytesPerSample = sampleFormat == .s16 ? 2 : 4
        var bytes: [UInt8] = []
        func ascii(_ text: String) { bytes += Array(text.utf8) }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        ascii("RIFF"); u32(0xFFFF_FFFF); ascii("WAVE")
        ascii("fmt "); u32(16)
        u16(sampleFormat == .s16 ? 1 : 3)
        u16(UInt16(channelCount))
        u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * channelCount * bytesPerSample))
        u16(UInt16(channelCount * bytesPerSample))
        u16(UInt16(bytesPerSample * 8))
        ascii("data"); u32(0xFFFF_FFFF)
        return bytes
    }

    /// Writes `source` to `descriptor`: the header, then `frames` frames (nil: until the reader goes
    /// away), each channel times `gains[c]`, 16-bit with the TPDF dither stream `ditherKeys[c]` or f32.
    /// SIGPIPE must be ignored by the caller so that a reader going away shows as EPIPE.
    package static func write(_ source: any AudioSource, frames: Int?, gains: [Float], ditherKeys: [UInt64],
                             sampleFormat: SampleFormat, to descriptor: Int32,
                             chunkFrames: Int = 4_800) throws(ShadesError) -> Ending {
        let channels = source.channelCount
        precondition(gains.count == channels && ditherKeys.count == channels, "one gain and one dither key per channel")
        let sixteen = sampleFormat == .s16
        guard try send(header(sampleRate: Int(source.sampleRate), channelCount: channels, sampleFormat: sampleFormat),
                       to: descriptor) else { return .readerClosed }
        var quantizers = ditherKeys.map { SignalQuantizer(ditherKey: $0) }
        let buffer = AudioBuffer(channelCount: channels, frameCapacity: chunkFrames)
        let planes16 = UnsafeMutablePointer<Int16>.allocate(capacity: chunkFrames * channels)
        let planesFloat = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * channels)
        let interleaved = UnsafeMutableRawPointer.allocate(byteCount: chunkFrames * channels * 4, alignment: 8)
        defer { planes16.deallocate(); planesFloat.deallocate(); interleaved.deallocate() }
        var done = 0
        while frames.map({ done < $0 }) ?? true {
            let n = min(chunkFrames, (frames ?? Int.max) - done)
            buffer.withBlock(frames: 0..<n) { block in
                source.render(into: block)
                for c in 0..<channels {
                    let samples = UnsafeBufferPointer(block.channel(c))
                    if sixteen {
                        quantizers[c].quantize16(samples, gain: gains[c],
                                                 into: UnsafeMutableBufferPointer(start: planes16 + c * chunkFrames, count: n))
                    } else {
                        SignalQuantizer.scale(samples, gain: gains[c],
                                              into: UnsafeMutableBufferPointer(start: planesFloat + c * chunkFrames, count: n))
                    }
                }
            }
            let byteCount: Int
            if sixteen {
                Interleave.frames((0..<channels).map { UnsafePointer(planes16 + $0 * chunkFrames) }, frames: n,
                                  into: interleaved.assumingMemoryBound(to: Int16.self))
                byteCount = n * channels * 2
            } else {
                Interleave.frames((0..<channels).map { UnsafePointer(planesFloat + $0 * chunkFrames) }, frames: n,
                                  into: interleaved.assumingMemoryBound(to: Float.self))
                byteCount = n * channels * 4
            }
            guard try send(UnsafeRawBufferPointer(start: interleaved, count: byteCount), to: descriptor) else { return .readerClosed }
            done += n
        }
        return .complete
    }

    /// Writes all of `bytes`; false when the reader has gone (EPIPE).
    private static func send(_ bytes: [UInt8], to descriptor: Int32) throws(ShadesError) -> Bool {
        let result: Result<Bool, ShadesError> = bytes.withUnsafeBytes { raw in
            do throws(ShadesError) { return .success(try send(raw, to: descriptor)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func send(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(ShadesError) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = Platform.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { return false }
                throw .runtime("cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            written += n
        }
        return true
    }
}

import CSampleRate
import ShadesDSP

/// Sample-rate conversion of whole buffers with libsamplerate (`StreamingResampler` converts block by block).
package enum Resampler {
    /// Converter quality.
    package enum Quality: String, CaseIterable, Sendable, Codable {
        /// The default. Streams (``StreamingResampler``) between whole rates whose ratio reduces to terms of
        /// 1,024 or less run the rational FFT resampler (``RationalResampler``: flat to 0.95 × the lower
        /// Nyquist, images and aliases below −150 dB measured); other ratios and whole buffers run
        /// libsamplerate's SRC_SINC_BEST_QUALITY (97 dB SNR, 97 % bandwidth).
        case best
        /// libsamplerate's SRC_SINC_MEDIUM_QUALITY.
        case medium
        /// libsamplerate's SRC_SINC_FASTEST.
        case fastest

        var converter: Int32 {
            switch self {
            case .best: return Int32(SRC_SINC_BEST_QUALITY)
            case .medium: return Int32(SRC_SINC_MEDIUM_QUALITY)
            case .fastest: return Int32(SRC_SINC_FASTEST)
            }
        }
    }

    /// Converts every channel of `buffer` from `inputRate` to `outputRate` Hz (`src_simple`).
    package static func convert(_ buffer: AudioBuffer, from inputRate: Double, to outputRate: Double,
                               quality: Quality = .best) throws(ShadesError) -> AudioBuffer {
        let ratio = outputRate / inputRate
        let outputFrames = Int((Double(buffer.frameCapacity) * ratio).rounded())
        let output = AudioBuffer(channelCount: buffer.channelCount, frameCapacity: outputFrames)
        for c in 0..<buffer.channelCount {
            let code: Int32 = buffer.withChannel(c) { input in
                output.withChannel(c) { out in
                    var data = SRC_DATA()
                    data.data_in = UnsafePointer(input.baseAddress)
                    data.input_frames = Int(input.count)
                    data.data_out = out.baseAddress
                    data.output_frames = Int(out.count)
                    data.src_ratio = ratio
                    return src_simple(&data, quality.converter, 1)
                }
            }
            guard code == 0 else { throw .runtime("resampling failed: \(String(cString: src_strerror(code)))") }
        }
        return output
    }
}

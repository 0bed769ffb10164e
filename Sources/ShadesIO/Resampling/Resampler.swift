import CSampleRate
import ShadesDSP

/// Sample-rate conversion of whole buffers with libsamplerate (`StreamingResampler` converts block by block).
package enum Resampler {
    /// Converter quality. Streams (``StreamingResampler``) between whole rates run the rational FFT
    /// resampler (``RationalResampler``, behind it ``FractionalResampler`` when the ratio's terms are
    /// large) at every quality: faster than any libsamplerate converter, and at least as good as the
    /// libsamplerate converter of the same name (97 dB SNR; 97, 90 and 80 % bandwidth). Whole buffers
    /// (``Resampler/convert(_:from:to:quality:)``) and rates that are not whole numbers of Hz run
    /// libsamplerate's converter of the same name.
    package enum Quality: String, CaseIterable, Sendable, Codable {
        /// The default: passband flat to 0.95 × the lower Nyquist, images and aliases 140 dB down by
        /// design (below −150 dB measured). libsamplerate: SRC_SINC_BEST_QUALITY.
        case best
        /// Passband to 0.90 × the lower Nyquist, 120 dB down. libsamplerate: SRC_SINC_MEDIUM_QUALITY.
        case medium
        /// Passband to 0.80 × the lower Nyquist, 100 dB down. libsamplerate: SRC_SINC_FASTEST.
        case fastest

        /// Stop-band attenuation of the rational resampler's low-pass, dB.
        package var attenuationDB: Double {
            switch self {
            case .best: return RationalResamplerDesign.bestAttenuationDB
            case .medium: return 120
            case .fastest: return 100
            }
        }

        /// Where the rational resampler's passband ends, as a share of the lower Nyquist.
        package var passbandShare: Double {
            switch self {
            case .best: return RationalResamplerDesign.bestPassbandShare
            case .medium: return 0.90
            case .fastest: return 0.80
            }
        }

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

import ShadesDSP

/// Sample format of a written file.
public enum SampleFormat: String, CaseIterable, Sendable, Codable {
    /// 16-bit PCM with TPDF dither.
    case s16
    /// 24-bit PCM.
    case s24
    /// 32-bit IEEE float.
    case f32

    /// The largest sample magnitude that is written without clipping (full scale 1.0). For s16 one LSB is
    /// kept free for the ±1 LSB dither.
    package var clipLimit: Double {
        switch self {
        case .s16: return 32_766.0 / 32_768.0
        case .s24, .f32: return 1
        }
    }
}

/// Container of a written file, chosen by the file extension.
public enum Container: String, CaseIterable, Sendable, Codable {
    case wav
    case flac

    /// The container for `path`'s extension (`.wav`, `.flac`; case-insensitive).
    public init(path: String) throws(ShadesError) {
        let ext = path.split(separator: "/").last.flatMap { name in
            name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        }
        switch ext {
        case "wav": self = .wav
        case "flac": self = .flac
        default:
            throw ShadesError(.output, .other("has an unsupported extension"), value: .text(path),
                              allowed: AllowedValues(note: Self.allCases.map { "." + $0.rawValue }.joined(separator: ", ")))
        }
    }

    /// Whether the container stores `format`.
    package func supports(_ format: SampleFormat) -> Bool { self == .wav || format != .f32 }
}

/// An output file's container and sample format.
package struct AudioFileFormat: Sendable, Equatable, Codable {
    package let container: Container
    package let sampleFormat: SampleFormat

    /// Throws when the container cannot hold the sample format (FLAC holds s16 and s24 only).
    package init(container: Container, sampleFormat: SampleFormat) throws(ShadesError) {
        guard container.supports(sampleFormat) else {
            throw ShadesError(.sampleFormat, .other("cannot be stored in \(container.rawValue.uppercased())"), value: .text(sampleFormat.rawValue),
                              allowed: AllowedValues(note: SampleFormat.allCases.filter(container.supports).map(\.rawValue).joined(separator: ", ")))
        }
        self.container = container
        self.sampleFormat = sampleFormat
    }
}

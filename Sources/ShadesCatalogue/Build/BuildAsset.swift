import ShadesDSP
import ShadesIO
import ShadesRender

/// One sound of a catalogue, resolved: what to render and how loud the file must be.
public struct CatalogueAsset: Sendable, Codable, Equatable {
    /// File name stem and manifest key: letters, digits, `-` and `_` (1 … 100 characters).
    public var id: String
    /// The category it belongs to (informational; the order comes from ``CatalogueCategory/assetIDs``).
    public var category: String
    /// Title per language code ("en", "de").
    public var titles: [String: String]
    /// The sound. Its `levelDBFS` is only a starting level: the builder moves it so the file reaches
    /// ``loudnessLUFS``.
    public var request: RenderRequest
    /// Integrated loudness of the file in LUFS (BS.1770-4, −70 … 0).
    public var loudnessLUFS: Double
    public var container: Container
    public var sampleFormat: SampleFormat
    /// The tinnitus frequency a personalised sound was made for, in Hz.
    public var frequencyHz: Double?
    /// For a texture: the layers mixed (each its own request, gain and swell); `request` is then the first
    /// layer's and gives the length, rate, channels and loop flag.
    public var layers: [MixLayer]?
    /// For notched music: the patient's file and the notch; `request` then only gives the rate and channels.
    public var music: MusicInput?

    public init(id: String, category: String, titles: [String: String], request: RenderRequest, loudnessLUFS: Double,
                container: Container = .wav, sampleFormat: SampleFormat = .s16, frequencyHz: Double? = nil) {
        self.id = id
        self.category = category
        self.titles = titles
        self.request = request
        self.loudnessLUFS = loudnessLUFS
        self.container = container
        self.sampleFormat = sampleFormat
        self.frequencyHz = frequencyHz
    }

    /// The file's name inside the catalogue folder, e.g. `pink.wav`.
    public var fileName: String { "\(id).\(container.rawValue)" }
}

/// A category of the catalogue: its titles and its sounds in order.
public struct CatalogueCategory: Sendable, Codable, Equatable {
    /// Letters, digits, `-` and `_`.
    public var id: String
    /// Title per language code ("en", "de").
    public var titles: [String: String]
    /// The sounds shown in this category, in order (ids of ``CatalogueAsset``s).
    public var assetIDs: [String]

    public init(id: String, titles: [String: String], assetIDs: [String]) {
        (self.id, self.titles, self.assetIDs) = (id, titles, assetIDs)
    }
}

extension ShadesError {
    /// A sound that cannot reach its target (loudness, true peak, seam) or fails its verification:
    /// "sound ID: message".
    static func asset(id: String, message: String) -> ShadesError { .runtime("sound \(id): \(message)") }

    /// The same error with the building folder's path shown as the catalogue folder the user named.
    func naming(_ building: String, as folder: String) -> ShadesError {
        var renamed = self
        renamed.message = message.replacing(building + "/", with: folder + "/")
        return renamed
    }
}

/// The limits every catalogue file meets.
public enum CatalogueLimits {
    /// Highest true peak of a file, in dBTP (EBU R 128).
    public static let maximumTruePeakDBTP = -1.0
    /// Largest difference between a file's integrated loudness and its target, in LU.
    public static let loudnessToleranceLU = 0.1
    /// Headroom kept below ``maximumTruePeakDBTP`` when choosing the gain, for quantisation and dither, in dB.
    static let truePeakMarginDB = 0.02
    /// Allowed loudness targets in LUFS.
    public static let loudnessRange: ClosedRange<Double> = -70 ... 0
}

extension CatalogueAsset {
    /// Checks the id, loudness, format and the request; the error names the asset and the parameter.
    func validate() throws(ShadesError) {
        guard isSafeIdentifier(id) else {
            throw .usage("sound id \"\(id)\" is not allowed (allowed: 1 … 100 letters, digits, - and _)")
        }
        guard loudnessLUFS.isFinite, CatalogueLimits.loudnessRange.contains(loudnessLUFS) else {
            throw .asset(id: id, message: "loudness \(loudnessLUFS) LUFS is out of range (allowed: -70 … 0 LUFS)")
        }
        guard container.supports(sampleFormat) else {
            throw .asset(id: id, message: "format \(sampleFormat.rawValue) cannot be stored in \(container.rawValue.uppercased()) (allowed: s16, s24)")
        }
        do throws(ShadesError) { try request.validate() } catch {
            throw .asset(id: id, message: error.description)
        }
    }
}

/// 1 … 100 ASCII letters, digits, `-` and `_`, not starting with `.` (safe as a file name and in HTML).
func isSafeIdentifier(_ text: String) -> Bool {
    guard !text.isEmpty, text.utf8.count <= 100 else { return false }
    return text.utf8.allSatisfy { c in
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
    }
}

/// One layer of a mixed asset.
public struct MixLayer: Sendable, Codable, Equatable {
    public var request: RenderRequest
    /// Gain in the mix, dB (each layer first at its request's RMS level).
    public var gainDB: Double
    /// A slow amplitude swell (seconds of the base period, depth 0 … 1).
    public var swellPeriodSeconds: Double?
    public var swellDepth: Double?

    public init(request: RenderRequest, gainDB: Double, swellPeriodSeconds: Double? = nil, swellDepth: Double? = nil) {
        (self.request, self.gainDB, self.swellPeriodSeconds, self.swellDepth) = (request, gainDB, swellPeriodSeconds, swellDepth)
    }
}

/// A music file for the personalised category, notched at the tinnitus frequency (Okamoto 2010).
public struct MusicInput: Sendable, Codable, Equatable {
    public var path: String
    public var notch: NotchSpec
    /// Size in bytes and modification time of the file when the catalogue was resolved (part of the
    /// cache key: a changed song is notched again).
    public var fileBytes: Int
    public var modified: Double

    public init(path: String, notch: NotchSpec, fileBytes: Int, modified: Double) {
        (self.path, self.notch, self.fileBytes, self.modified) = (path, notch, fileBytes, modified)
    }
}

import ShadesDSP
import ShadesIO
import ShadesRender

/// One sound of a catalogue, resolved: what to render, and the file it becomes.
package struct CatalogueAsset: Sendable, Encodable, Equatable {
    /// File name stem and manifest key: letters, digits, `-` and `_` (1 … 100 characters).
    package var id: String
    /// The category it belongs to (informational; the order comes from ``Manifest/Category/soundIDs``).
    package var category: String
    /// Title per language code ("en", "de").
    package var titles: [String: String]
    /// The sound and its output: length, rate, channels, seed, loop, and its level: a loudness target
    /// under a true-peak ceiling (``LevelPolicy/loudness(lufs:truePeakCeilingDBTP:)``).
    package var request: RenderRequest
    package var container: Container
    package var sampleFormat: SampleFormat
    /// The tinnitus frequency a personalised sound was made for, in Hz.
    package var frequencyHz: Double?
    /// The folder the sound's relative file paths are found in (the music folder); nil: as given.
    package var filesFolder: String?
    /// Modification time of each file the sound reads, seconds since 1970, when resolved (part of the
    /// cache key: a changed song is notched again).
    package var filesModified: [Double]?

    package init(id: String, category: String, titles: [String: String], request: RenderRequest,
                container: Container = .wav, sampleFormat: SampleFormat = .s16, frequencyHz: Double? = nil) {
        self.id = id
        self.category = category
        self.titles = titles
        self.request = request
        self.container = container
        self.sampleFormat = sampleFormat
        self.frequencyHz = frequencyHz
    }

    /// The file's name inside the catalogue folder, e.g. `pink.wav`.
    package var fileName: String { "\(id).\(container.rawValue)" }

    /// An asset of `request`'s sound and output at `loudnessLUFS` under the catalogue's −1 dBTP ceiling.
    package init(id: String, category: String, titles: [String: String], request: RenderRequest, loudnessLUFS: Double,
                container: Container = .wav, sampleFormat: SampleFormat = .s16, frequencyHz: Double? = nil) {
        var leveled = request
        leveled.level = .loudness(lufs: loudnessLUFS, truePeakCeilingDBTP: CatalogueLimits.maximumTruePeakDBTP)
        self.init(id: id, category: category, titles: titles, request: leveled, container: container,
                  sampleFormat: sampleFormat, frequencyHz: frequencyHz)
    }

    /// Integrated loudness of the file in LUFS (BS.1770-4, −70 … 0): the request's loudness target.
    package var loudnessLUFS: Double {
        get {
            if case .loudness(let lufs, _) = request.level { return lufs }
            return CatalogueDefaults().loudnessLUFS
        }
        set { request.level = .loudness(lufs: newValue, truePeakCeilingDBTP: CatalogueLimits.maximumTruePeakDBTP) }
    }

    /// The request with every relative file path found in ``filesFolder``: what is rendered.
    package var resolvedRequest: RenderRequest {
        guard let filesFolder else { return request }
        var resolved = request
        resolved.sound = request.sound.mappingFiles { file in
            var found = file
            if !file.path.hasPrefix("/") { found.path = filesFolder + "/" + file.path }
            return found
        }
        return resolved
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
package enum CatalogueLimits {
    /// Highest true peak of a file, in dBTP (EBU R 128).
    package static let maximumTruePeakDBTP = -1.0
    /// Largest difference between a file's integrated loudness and its target, in LU.
    package static let loudnessToleranceLU = 0.1
}

extension CatalogueAsset {
    /// Checks the id, loudness, format and the request; the error names the asset and the parameter.
    func validate() throws(ShadesError) {
        guard isSafeIdentifier(id) else {
            throw .usage("sound id \"\(id)\" is not allowed (allowed: 1 … 100 letters, digits, - and _)")
        }
        guard loudnessLUFS.isFinite, Parameter.loudness.range!.contains(loudnessLUFS) else {
            throw .asset(id: id, message: "loudness \(loudnessLUFS) LUFS is out of range (allowed: \(Parameter.loudness.range!))")
        }
        guard container.supports(sampleFormat) else {
            throw .asset(id: id, message: "format \(sampleFormat.rawValue) cannot be stored in \(container.rawValue.uppercased()) (allowed: s16, s24)")
        }
        do throws(ShadesError) { try resolvedRequest.validate() } catch {
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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender

/// `manifest.json` of a catalogue folder: what the app reads (categories, sounds, files) and what a
/// check or an incremental build needs (measured loudness, hashes, recipes).
public struct Manifest: Sendable, Codable, Equatable {
    /// Version of this manifest's layout.
    public package(set) var schemaVersion: Int
    /// The Shades library that built the files (``ShadesVersion/string``).
    package var libraryVersion: String
    /// Build parameters as given by the caller (e.g. the preset file and its values).
    package var parameters: [String: String]
    /// The tinnitus frequency the personalised sounds were made for, Hz (nil: none).
    public package(set) var tinnitusFrequencyHz: Double?
    /// Categories in display order.
    public package(set) var categories: [Category]
    /// Every sound, in the order the assets were given.
    public package(set) var sounds: [Sound]

    /// The current ``schemaVersion``.
    package static let currentSchemaVersion = 2
    /// File name of the manifest inside a catalogue folder.
    package static let fileName = "manifest.json"

    package init(libraryVersion: String = ShadesVersion.string, parameters: [String: String], categories: [Category], sounds: [Sound]) {
        schemaVersion = Self.currentSchemaVersion
        self.libraryVersion = libraryVersion
        self.parameters = parameters
        self.categories = categories
        self.sounds = sounds
    }

    public struct Category: Sendable, Codable, Equatable {
        public package(set) var id: String
        public package(set) var titles: [String: String]
        /// Sound ids in display order.
        public package(set) var soundIDs: [String]

        package init(id: String, titles: [String: String], soundIDs: [String]) {
            (self.id, self.titles, self.soundIDs) = (id, titles, soundIDs)
        }
    }

    /// One sound file and how it was made.
    public struct Sound: Sendable, Codable, Equatable {
        public package(set) var id: String
        public package(set) var category: String
        public package(set) var titles: [String: String]
        /// Path relative to the catalogue folder.
        public package(set) var file: String
        public package(set) var durationSeconds: Double
        package var frames: Int
        /// Hz.
        package var sampleRate: Int
        package var channels: Int
        package var container: Container
        package var sampleFormat: SampleFormat
        /// Whether the file repeats seamlessly (checked with the seam test).
        public package(set) var loop: Bool
        /// The asked integrated loudness in LUFS.
        package var targetLoudnessLUFS: Double
        /// Integrated loudness of the written file in LUFS, measured by libebur128.
        package var integratedLoudnessLUFS: Double
        /// True peak of the written file in dBTP (libebur128's 4× interpolator, run in SIMD by `TruePeakMeter`).
        package var truePeakDBTP: Double
        /// SHA-256 of the file's bytes, 64 lowercase hex digits.
        public package(set) var sha256: String
        /// The sound, resolved (its channels and seed stated; a file's path relative to the music folder,
        /// with its bytes, decoded frames and rate), in the preset format's JSON: `shades render --sound` of it
        /// with this entry's duration, rate and loop gives this file's samples up to the level gain.
        public package(set) var recipe: ShadesRender.Sound
        /// The gain that brought the sound, made at the reference level (each generator signal, or each layer
        /// of a mix, at −20 dBFS RMS; a file as it is), to its loudness, dB.
        package var levelGainDB: Double
        /// The tinnitus frequency of a personalised sound, in Hz.
        public package(set) var frequencyHz: Double?
        /// SHA-256 over what decides the file's bytes (recipe, target loudness, format, library version):
        /// an incremental build reuses the file when this and the file hash match.
        package var cacheKey: String
    }

    /// The manifest as JSON with sorted keys (stable bytes for the same content).
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types into JSON cannot fail.
        return try! encoder.encode(self)
    }

    /// Reads `folder/manifest.json`.
    public static func read(folder: String) throws(ShadesError) -> Manifest {
        let path = folder + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input("cannot read \(path): no such file or not readable")
        }
        do { return try JSONDecoder().decode(Manifest.self, from: data) } catch {
            throw .input("cannot read \(path): not a Shades catalogue manifest (\(oneLine(error)))")
        }
    }
}

extension CatalogueAsset {
    /// SHA-256 over the JSON (sorted keys) of what decides the file's bytes and the library version.
    /// Titles, category and id are left out: they change the page, not the sound.
    var cacheKey: String {
        struct Key: Encodable {
            let library: String, request: RenderRequest, filesModified: [Double]?, container: Container, sampleFormat: SampleFormat
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try! encoder.encode(Key(library: ShadesVersion.string, request: request, filesModified: filesModified,
                                          container: container, sampleFormat: sampleFormat))
        return SHA256.hex(of: data)
    }
}

/// The first line of an error's description.
func oneLine(_ error: any Error) -> String {
    String(describing: error).split(separator: "\n").first.map(String.init) ?? "unknown error"
}

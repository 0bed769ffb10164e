import ShadesDSP
import ShadesRender

// The catalogue model: one `Presets/*.json` file is a ``CatalogueDocument``. The JSON schema is documented
// in Presets/README.md and read by ``PresetParser`` (which reports file, line and column); the Codable
// conformances here are a plain round trip of this model (encode → decode), not the schema reader.

/// One catalogue file: defaults for every sound and the categories in display order.
package struct CatalogueDocument: Sendable, Codable, Equatable {
    package var defaults: CatalogueDefaults
    /// Categories in display order.
    package var categories: [PresetCategory]
    /// Where each JSON path (e.g. `categories[0].sounds[1].sound.layers[0].frequency`) starts in the file,
    /// for error messages. Not encoded and not compared.
    var locations: [String: SourceLocation] = [:]

    package init(defaults: CatalogueDefaults = CatalogueDefaults(), categories: [PresetCategory]) {
        (self.defaults, self.categories) = (defaults, categories)
    }

    private enum CodingKeys: String, CodingKey { case defaults, categories }

    package static func == (a: Self, b: Self) -> Bool { a.defaults == b.defaults && a.categories == b.categories }

    /// Every sound with its category, in display order.
    package var sounds: [(category: PresetCategory, sound: PresetSound)] {
        categories.flatMap { category in category.sounds.map { (category, $0) } }
    }
}

/// Values a sound uses unless it overrides them.
package struct CatalogueDefaults: Sendable, Codable, Equatable {
    /// Integrated loudness target, LUFS (``Parameter/loudness``: −70 … 0; default −23, EBU R 128).
    package var loudnessLUFS: Double
    /// Sample rate, Hz (8,000 … 192,000, whole; default 48,000).
    package var rate: Double
    /// File type: "wav" or "flac" (default "wav").
    package var format: String
    /// Sample format: "s16", "s24" or "f32" (f32 only in WAV; default "s16").
    package var sampleFormat: String
    /// Length of each file, seconds (> 0, ≤ 24 h; default 60).
    package var lengthSeconds: Double

    package init(loudnessLUFS: Double = -23, rate: Double = 48_000, format: String = "wav", sampleFormat: String = "s16",
                lengthSeconds: Double = 60) {
        (self.loudnessLUFS, self.rate, self.format, self.sampleFormat, self.lengthSeconds) =
            (loudnessLUFS, rate, format, sampleFormat, lengthSeconds)
    }

    /// Allowed file types.
    package static let formats = ["wav", "flac"]
    /// Allowed sample formats.
    package static let sampleFormats = ["s16", "s24", "f32"]
}

/// A category of sounds (the app's list headings).
package struct PresetCategory: Sendable, Codable, Equatable {
    /// Lowercase a-z, 0-9, '-', '_'; 1 … 64 characters (``PresetID``).
    package var id: String
    /// Title per language code; must hold "en" and "de".
    package var titles: [String: String]
    /// Sounds in display order.
    package var sounds: [PresetSound]

    package init(id: String, titles: [String: String], sounds: [PresetSound]) {
        (self.id, self.titles, self.sounds) = (id, titles, sounds)
    }
}

/// One sound of the catalogue: its ``Sound``, its length and loop mode, and optional overrides of the defaults.
package struct PresetSound: Sendable, Codable, Equatable {
    /// Unique across the whole catalogue; also the output file's name. ``PresetID`` rules.
    package var id: String
    /// Title per language code; must hold "en" and "de".
    package var titles: [String: String]
    /// What is heard: the preset format's `sound` (its JSON is ``Sound``'s).
    package var sound: Sound
    /// Length, seconds; nil: the catalogue's default.
    package var lengthSeconds: Double?
    /// Seamless loop (default true).
    package var loop: Bool
    /// Loudness target, LUFS; nil: the catalogue's default.
    package var loudnessLUFS: Double?
    /// Sample rate, Hz; nil: the catalogue's default.
    package var rate: Double?
    /// "wav" or "flac"; nil: the catalogue's default.
    package var format: String?
    /// "s16", "s24" or "f32"; nil: the catalogue's default.
    package var sampleFormat: String?

    package init(id: String, titles: [String: String], sound: Sound, lengthSeconds: Double? = nil, loop: Bool = true,
                loudnessLUFS: Double? = nil, rate: Double? = nil, format: String? = nil, sampleFormat: String? = nil) {
        (self.id, self.titles, self.sound, self.lengthSeconds, self.loop) = (id, titles, sound, lengthSeconds, loop)
        (self.loudnessLUFS, self.rate, self.format, self.sampleFormat) = (loudnessLUFS, rate, format, sampleFormat)
    }

    /// The settings this sound is rendered with: its overrides, else the catalogue's defaults.
    package func settings(defaults: CatalogueDefaults) -> CatalogueDefaults {
        CatalogueDefaults(loudnessLUFS: loudnessLUFS ?? defaults.loudnessLUFS, rate: rate ?? defaults.rate,
                          format: format ?? defaults.format, sampleFormat: sampleFormat ?? defaults.sampleFormat,
                          lengthSeconds: lengthSeconds ?? defaults.lengthSeconds)
    }

    /// Output file name: `<id>.<format>`.
    package func fileName(defaults: CatalogueDefaults) -> String { "\(id).\(format ?? defaults.format)" }

    /// The request this sound is rendered from at `settings`: its sound at the loudness target under the
    /// −1 dBTP ceiling (EBU R 128), stereo and seed 1 unless the sound fixes its own.
    package func request(settings: CatalogueDefaults) -> RenderRequest {
        RenderRequest(sound: sound, durationSeconds: settings.lengthSeconds, sampleRate: settings.rate, layout: .stereo,
                      level: .loudness(lufs: settings.loudnessLUFS, truePeakCeilingDBTP: CatalogueLimits.maximumTruePeakDBTP),
                      seed: 1, loop: loop)
    }
}

/// Rules for category and sound ids (they become file and folder names).
package enum PresetID {
    /// Longest id, characters.
    package static let maximumLength = 64

    /// True for 1 … 64 characters of a-z, 0-9, '-' and '_' (so an id can never leave the output folder).
    package static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumLength
            && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}

/// Every problem found in the catalogue files, one line each (validation reports all of them at once).
package struct PresetErrors: Error, Sendable, Equatable, CustomStringConvertible {
    package var errors: [ShadesError]
    package init(_ errors: [ShadesError]) { self.errors = errors }
    package var description: String { errors.map(\.description).joined(separator: "\n") }
}

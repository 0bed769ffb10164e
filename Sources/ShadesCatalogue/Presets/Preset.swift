import ShadesDSP
import ShadesRender

// The catalogue model: one `Presets/*.json` file is a ``CatalogueDocument``. The JSON schema is documented
// in Presets/README.md and read by ``PresetParser`` (which reports file, line and column); the Codable
// conformances here are a plain round trip of this model (encode → decode), not the schema reader.

/// One catalogue file: defaults for every sound and the categories in display order.
public struct CatalogueDocument: Sendable, Codable, Equatable {
    public var defaults: CatalogueDefaults
    /// Categories in display order.
    public var categories: [PresetCategory]
    /// Where each JSON path (e.g. `categories[0].sounds[1].recipe.layers[0].frequency`) starts in the file,
    /// for error messages. Not encoded and not compared.
    var locations: [String: SourceLocation] = [:]

    public init(defaults: CatalogueDefaults = CatalogueDefaults(), categories: [PresetCategory]) {
        (self.defaults, self.categories) = (defaults, categories)
    }

    private enum CodingKeys: String, CodingKey { case defaults, categories }

    public static func == (a: Self, b: Self) -> Bool { a.defaults == b.defaults && a.categories == b.categories }

    /// Every sound with its category, in display order.
    public var sounds: [(category: PresetCategory, sound: PresetSound)] {
        categories.flatMap { category in category.sounds.map { (category, $0) } }
    }
}

/// Values a sound uses unless it overrides them.
public struct CatalogueDefaults: Sendable, Codable, Equatable {
    /// Integrated loudness target, LUFS (−60 … −5; default −23, EBU R 128).
    public var loudnessLUFS: Double
    /// Sample rate, Hz (8,000 … 192,000, whole; default 48,000).
    public var rate: Double
    /// File type: "wav" or "flac" (default "wav").
    public var format: String
    /// Sample format: "s16", "s24" or "f32" (f32 only in WAV; default "s16").
    public var sampleFormat: String
    /// Length of each file, seconds (> 0, ≤ 24 h; default 60).
    public var lengthSeconds: Double

    public init(loudnessLUFS: Double = -23, rate: Double = 48_000, format: String = "wav", sampleFormat: String = "s16",
                lengthSeconds: Double = 60) {
        (self.loudnessLUFS, self.rate, self.format, self.sampleFormat, self.lengthSeconds) =
            (loudnessLUFS, rate, format, sampleFormat, lengthSeconds)
    }

    /// Allowed loudness targets, LUFS.
    public static let allowedLoudnessLUFS: ClosedRange<Double> = -60 ... -5
    /// Allowed file types.
    public static let formats = ["wav", "flac"]
    /// Allowed sample formats.
    public static let sampleFormats = ["s16", "s24", "f32"]
}

/// A category of sounds (the app's list headings).
public struct PresetCategory: Sendable, Codable, Equatable {
    /// Lowercase a-z, 0-9, '-', '_'; 1 … 64 characters (``PresetID``).
    public var id: String
    /// Title per language code; must hold "en" and "de".
    public var titles: [String: String]
    /// Sounds in display order.
    public var sounds: [PresetSound]

    public init(id: String, titles: [String: String], sounds: [PresetSound]) {
        (self.id, self.titles, self.sounds) = (id, titles, sounds)
    }
}

/// One sound of the catalogue: a recipe, its length and loop mode, and optional overrides of the defaults.
public struct PresetSound: Sendable, Codable, Equatable {
    /// Unique across the whole catalogue; also the output file's name. ``PresetID`` rules.
    public var id: String
    /// Title per language code; must hold "en" and "de".
    public var titles: [String: String]
    public var recipe: Recipe
    /// Length, seconds; nil: the catalogue's default.
    public var lengthSeconds: Double?
    /// Seamless loop (default true).
    public var loop: Bool
    /// Loudness target, LUFS; nil: the catalogue's default.
    public var loudnessLUFS: Double?
    /// Sample rate, Hz; nil: the catalogue's default.
    public var rate: Double?
    /// "wav" or "flac"; nil: the catalogue's default.
    public var format: String?
    /// "s16", "s24" or "f32"; nil: the catalogue's default.
    public var sampleFormat: String?

    public init(id: String, titles: [String: String], recipe: Recipe, lengthSeconds: Double? = nil, loop: Bool = true,
                loudnessLUFS: Double? = nil, rate: Double? = nil, format: String? = nil, sampleFormat: String? = nil) {
        (self.id, self.titles, self.recipe, self.lengthSeconds, self.loop) = (id, titles, recipe, lengthSeconds, loop)
        (self.loudnessLUFS, self.rate, self.format, self.sampleFormat) = (loudnessLUFS, rate, format, sampleFormat)
    }

    /// The settings this sound is rendered with: its overrides, else the catalogue's defaults.
    public func settings(defaults: CatalogueDefaults) -> CatalogueDefaults {
        CatalogueDefaults(loudnessLUFS: loudnessLUFS ?? defaults.loudnessLUFS, rate: rate ?? defaults.rate,
                          format: format ?? defaults.format, sampleFormat: sampleFormat ?? defaults.sampleFormat,
                          lengthSeconds: lengthSeconds ?? defaults.lengthSeconds)
    }

    /// Output file name: `<id>.<format>`.
    public func fileName(defaults: CatalogueDefaults) -> String { "\(id).\(format ?? defaults.format)" }
}

/// How a sound is made: one or more layers mixed, placed in channels, faded.
public struct Recipe: Sendable, Codable, Equatable {
    /// One or more layers, mixed (each with its own modifiers and gain).
    public var layers: [Layer]
    /// Channel layout of the mix (default stereo: independent noise per ear).
    public var channels: ChannelLayout
    /// Seed of the first layer; layer i uses seed + i so layers are independent (default 1).
    public var seed: UInt64
    /// Raised-cosine fades on the mix (not with loop).
    public var fades: Fades?

    public init(layers: [Layer], channels: ChannelLayout = .stereo, seed: UInt64 = 1, fades: Fades? = nil) {
        (self.layers, self.channels, self.seed, self.fades) = (layers, channels, seed, fades)
    }
}

/// One layer of a recipe: a source, its modifiers (AM, notches, swell) and its gain in the mix.
public struct Layer: Sendable, Codable, Equatable {
    public var source: LayerSource
    /// Gain of this layer in the mix, dB (−60 … 0; default 0). The mix is normalised to the loudness target
    /// afterwards, so only the differences between layers matter.
    public var gainDB: Double
    /// Sinusoidal amplitude modulation (10 Hz: Neff 2017; Schoisswohl 2019).
    public var am: Modulation?
    /// Notches cut from this layer (Okamoto 2010; Stein 2016).
    public var notch: [NotchSpec]?
    /// Slow random-like amplitude swell (textures: surf, wind).
    public var swell: Swell?

    public init(source: LayerSource, gainDB: Double = 0, am: Modulation? = nil, notch: [NotchSpec]? = nil, swell: Swell? = nil) {
        (self.source, self.gainDB, self.am, self.notch, self.swell) = (source, gainDB, am, notch, swell)
    }

    /// Allowed layer gains, dB.
    public static let allowedGainDB: ClosedRange<Double> = -60...0

    /// The library's render request for this layer alone at `settings` (level −20 dBFS as a placeholder: the
    /// mix is normalised to loudness later; swell is applied by the catalogue builder). Fades are the
    /// recipe's: the same envelope on every layer is the envelope of the mix.
    public func renderRequest(recipe: Recipe, loop: Bool, settings: CatalogueDefaults, seed: UInt64) -> RenderRequest {
        RenderRequest(sound: source.soundDescription,
                      durationSeconds: settings.lengthSeconds, sampleRate: settings.rate, layout: recipe.channels,
                      levelDBFS: -20, seed: seed, loop: loop, modulation: am, fades: recipe.fades,
                      notches: notch.flatMap { $0.isEmpty ? nil : $0 })
    }
}

/// The sound a layer starts from.
public enum LayerSource: Sendable, Codable, Equatable {
    /// Noise of PSD ∝ f^−β (JSON: "white", "pink", "brown", "blue", "violet", or "noise" with "beta").
    case colour(NoiseColour)
    /// A pure tone, Hz (0 < f < Nyquist).
    case tone(frequencyHz: Double)
    /// Narrow-band noise centred geometrically at `centreHz`, `widthOctaves` wide (0 < w ≤ 4).
    case nbn(centreHz: Double, widthOctaves: Double)
    /// Perceptually flat ("grey") noise: white noise shaped by the inverse A-weighting (`GreyNoise`).
    case grey

    /// The library's description of this source.
    public var soundDescription: SoundDescription {
        switch self {
        case .colour(let colour): return .noise(colour: colour, distribution: .gaussian)
        case .tone(let frequencyHz): return .tone(frequencyHz: frequencyHz)
        case .nbn(let centreHz, let widthOctaves): return .narrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves)
        case .grey: return .grey
        }
    }

    /// JSON source names.
    public static let names = ["white", "pink", "brown", "blue", "violet", "noise", "tone", "nbn", "grey"]
}

/// A slow random-like amplitude swell (waves, gusts); rendered by `SwellSource`.
public struct Swell: Sendable, Codable, Equatable {
    /// Mean period of a swell, seconds (2 … 60).
    public var periodSeconds: Double
    /// Depth 0 … 1 (0: none; 1: the level falls to silence between swells).
    public var depth: Double

    public init(periodSeconds: Double, depth: Double) { (self.periodSeconds, self.depth) = (periodSeconds, depth) }

    public static let allowedPeriodSeconds: ClosedRange<Double> = 2...60
    public static let allowedDepth: ClosedRange<Double> = 0...1
}

/// Rules for category and sound ids (they become file and folder names).
public enum PresetID {
    /// Longest id, characters.
    public static let maximumLength = 64

    /// True for 1 … 64 characters of a-z, 0-9, '-' and '_' (so an id can never leave the output folder).
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumLength
            && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}

/// A line and column (both from 1; columns count Unicode scalars) in a JSON file.
public struct SourceLocation: Sendable, Equatable {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) { (self.line, self.column) = (line, column) }
}

/// A problem in a catalogue file, as one line: `Presets/default.json:12:5: unknown key 'titel' (did you mean 'titles'?)`.
extension ShadesError {
    /// A problem at `location` (nil: the whole file) in the catalogue file `path`.
    init(path: String, at location: SourceLocation?, _ message: String) {
        self.init(path: path, line: location?.line, column: location?.column, message: message)
    }

    /// A problem at `location` of a file not yet named (the JSON scanner's; the parser adds the path).
    init(location: SourceLocation, message: String) {
        self.init(.parameter, message)
        (line, column) = (location.line, location.column)
    }

    /// The line and column, where there is a line.
    var location: SourceLocation? { line.map { SourceLocation(line: $0, column: column ?? 1) } }
}

/// Every problem found in the catalogue files, one line each (validation reports all of them at once).
public struct PresetErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ShadesError]
    public init(_ errors: [ShadesError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

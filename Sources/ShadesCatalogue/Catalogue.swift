#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender

/// What a catalogue build is asked beyond its presets: the patient's frequency, their music, and values
/// that replace the presets' defaults (a sound's own values still win).
public struct CatalogueOptions: Sendable, Equatable {
    /// The patient's tinnitus frequency, Hz: adds the personalised category (the tone, AM tones at 10 and
    /// 40 Hz, ½-octave narrow-band noise and its 10 Hz AM version, white and pink noise notched one octave).
    public var tinnitusFrequencyHz: Double?
    /// A folder of music files: each readable one is notched one octave at the tinnitus frequency
    /// (Okamoto 2010). Needs ``tinnitusFrequencyHz``.
    public var musicFolder: String?
    /// Sample rate of every asset, Hz (8,000 … 192,000), instead of the presets' default.
    public var sampleRate: Double?
    /// File type of every asset (wav or flac) instead of the presets' default.
    public var container: Container?
    /// Integrated loudness target of every asset, LUFS (``Parameter/loudness``: −70 … 0), instead of the presets' default.
    public var loudnessLUFS: Double?
    /// A spectral shape for the personalised noises and music (an audiogram's half-gain rule: Cuesta et al.
    /// 2022). Needs ``tinnitusFrequencyHz``.
    public var shape: SpectralShape?
    /// Recorded in the manifest's `parameters` as given (e.g. the command line's text).
    package var parameters: [String: String]

    public init(tinnitusFrequencyHz: Double? = nil, musicFolder: String? = nil, sampleRate: Double? = nil,
                container: Container? = nil, loudnessLUFS: Double? = nil, shape: SpectralShape? = nil,
                parameters: [String: String] = [:]) {
        (self.tinnitusFrequencyHz, self.musicFolder, self.sampleRate, self.container, self.loudnessLUFS, self.shape,
         self.parameters) = (tinnitusFrequencyHz, musicFolder, sampleRate, container, loudnessLUFS, shape, parameters)
    }
}

/// The app's sound catalogue: `Presets/*.json` (schema: Presets/README.md) in, a folder of loudness-matched,
/// verified assets with `manifest.json` and `index.html` out.
public enum Catalogue {
    /// Builds the catalogue that the presets in `presetsFolder` and `options` describe into `folder`.
    ///
    /// Every asset is rendered, brought to its loudness target (±0.1 LU, true peak ≤ −1 dBTP), written
    /// atomically, read back and verified; unchanged assets of a previous build are reused; the folder is
    /// replaced only when everything succeeded (an interrupted build leaves it as it was).
    /// - Parameters:
    ///   - warning: called once per music file that is skipped (unreadable, too short …), naming it.
    ///   - progress: called after each asset (serialised, from worker threads): assets done, total, the
    ///     asset's id, and whether it was reused from the previous build.
    /// - Throws: every problem of the presets (one line each, with file, line and column), a value the
    ///   library refuses, or a failed render or write.
    @discardableResult
    public static func build(presets presetsFolder: String, into folder: String, options: CatalogueOptions = CatalogueOptions(),
                             warning: (String) -> Void = { _ in },
                             progress: @Sendable (_ done: Int, _ total: Int, _ soundID: String, _ reused: Bool) -> Void = { _, _, _, _ in })
        throws(ShadesError) -> Manifest {
        let documents: [(file: String, document: CatalogueDocument)]
        do throws(PresetErrors) { documents = try PresetParser.loadCatalogue(folder: presetsFolder) } catch {
            throw .usage(error.description)
        }
        if options.musicFolder != nil && options.tinnitusFrequencyHz == nil {
            throw ShadesError(.tinnitusFrequency, .missing, allowed: AllowedValues(note: "a frequency with a music folder: the music is notched at it"))
        }
        if options.shape != nil && options.tinnitusFrequencyHz == nil {
            throw ShadesError(.tinnitusFrequency, .missing, allowed: AllowedValues(note: "a frequency with a shape: it shapes the personalised sounds"))
        }
        let overrides = CatalogueOverrides(rate: options.sampleRate, format: options.container?.rawValue,
                                           loudnessLUFS: options.loudnessLUFS)
        var (assets, categories) = try PresetAssets.resolve(documents, overrides: overrides)
        if let frequency = options.tinnitusFrequencyHz, let defaults = documents.first?.document.defaults {
            let personal = try PresetAssets.personal(frequencyHz: frequency, defaults: defaults, overrides: overrides,
                                                     musicFolder: options.musicFolder, shape: options.shape)
            personal.skipped.forEach(warning)
            assets += personal.assets
            categories.append(personal.category)
        }
        return try CatalogueBuilder.build(assets: assets, categories: categories, parameters: options.parameters,
                                          into: folder) { p in progress(p.done, p.total, p.assetID, p.reused) }
    }

    /// Checks a built catalogue again: every sound's file present with its recorded SHA-256, rate, channels
    /// and length, loudness within ±0.1 LU of its target, true peak ≤ −1 dBTP, loops seamless, categories
    /// naming existing sounds, `index.html` present.
    /// - Returns: one line per problem, each naming the sound or file (empty: the catalogue is fine).
    /// - Throws: when `folder/manifest.json` cannot be read.
    package static func check(folder: String) throws(ShadesError) -> [String] {
        try CatalogueBuilder.check(folder: folder)
    }
}

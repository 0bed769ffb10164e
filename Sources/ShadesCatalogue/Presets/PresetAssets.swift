#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender

/// Values given on the command line that replace a catalogue's defaults (a sound's own overrides still win).
package struct CatalogueOverrides: Sendable, Equatable {
    package var rate: Double?
    package var format: String?
    package var loudnessLUFS: Double?

    package init(rate: Double? = nil, format: String? = nil, loudnessLUFS: Double? = nil) {
        (self.rate, self.format, self.loudnessLUFS) = (rate, format, loudnessLUFS)
    }

    func apply(to defaults: CatalogueDefaults) -> CatalogueDefaults {
        var d = defaults
        if let rate { d.rate = rate }
        if let format { d.format = format }
        if let loudnessLUFS { d.loudnessLUFS = loudnessLUFS }
        return d
    }
}

/// Turns validated presets into the builder's assets and categories, in display order.
package enum PresetAssets {
    package static func resolve(_ documents: [(file: String, document: CatalogueDocument)],
                               overrides: CatalogueOverrides = CatalogueOverrides()) throws(ShadesError)
        -> (assets: [CatalogueAsset], categories: [Manifest.Category]) {
        var assets: [CatalogueAsset] = []
        var categories: [Manifest.Category] = []
        for (_, document) in documents {
            let defaults = overrides.apply(to: document.defaults)
            for category in document.categories {
                for sound in category.sounds {
                    let settings = sound.settings(defaults: defaults)
                    assets.append(try asset(id: sound.id, category: category.id, titles: sound.titles,
                                            request: sound.request(settings: settings), settings: settings))
                }
                categories.append(Manifest.Category(id: category.id, titles: category.titles, soundIDs: category.sounds.map(\.id)))
            }
        }
        return (assets, categories)
    }

    /// One sound of the catalogue that `presetsFolder` describes, by id: a preset sound, or with
    /// `tinnitusFrequencyHz` also the personalised ones (`personal-tone`, `personal-pink-notched` …:
    /// Presets/personal/category.json).
    package static func sound(id: String, presetsFolder: String, tinnitusFrequencyHz: Double? = nil,
                             overrides: CatalogueOverrides = CatalogueOverrides()) throws(ShadesError) -> CatalogueAsset {
        let documents: [(file: String, document: CatalogueDocument)]
        do throws(PresetErrors) { documents = try PresetParser.loadCatalogue(folder: presetsFolder) } catch {
            throw error.errors.first ?? .usage(error.description)
        }
        var assets = try resolve(documents, overrides: overrides).assets
        if let f = tinnitusFrequencyHz, let defaults = documents.first?.document.defaults {
            assets += try personal(frequencyHz: f, defaults: defaults, overrides: overrides).assets
        }
        guard let asset = assets.first(where: { $0.id == id }) else {
            throw .usage("sound \(id) is not in \(presetsFolder) (allowed: \(assets.map(\.id).joined(separator: ", ")))")
        }
        return asset
    }

    /// The personalised category for a measured tinnitus frequency (Match Your Tinnitus, an audiologist):
    /// the sounds of ``personalCategory(frequencyHz:)`` (Presets/personal/category.json), each id after the
    /// category's (`personal-tone`). With `musicFolder`, every readable file in it becomes notched music (one
    /// octave at the frequency). With `shape` (an audiogram's half-gain rule: Cuesta et al. 2022), the noises and
    /// the music are shaped by it; the tones and narrow bands are not (over a narrow band a shape is one gain,
    /// which the loudness target takes back).
    package static func personal(frequencyHz f: Double, defaults: CatalogueDefaults,
                                overrides: CatalogueOverrides = CatalogueOverrides(),
                                musicFolder: String? = nil, shape: SpectralShape? = nil) throws(ShadesError)
        -> (assets: [CatalogueAsset], category: Manifest.Category, skipped: [String]) {
        let d = overrides.apply(to: defaults)
        let category = try personalCategory(frequencyHz: f)
        var assets: [CatalogueAsset] = []
        for var preset in category.sounds {
            if preset.sound.generator?.as(ColouredNoise.self) != nil { preset.sound.shape = shape }
            let settings = preset.settings(defaults: d)
            let request = preset.request(settings: settings)
            do throws(ShadesError) { try request.validate() } catch {
                throw ShadesError(.tinnitusFrequency, .other("cannot be carried at \(formatHertz(settings.rate)) for sound \(preset.id): \(error.description)"),
                                  value: .number(f, .hertz))
            }
            var a = try asset(id: category.id + "-" + preset.id, category: category.id, titles: preset.titles, request: request, settings: settings)
            a.frequencyHz = f
            assets.append(a)
        }
        var skipped: [String] = []
        if let musicFolder {
            let music = try music(in: musicFolder, frequencyHz: f, settings: d, shape: shape)
            assets += music.assets
            skipped = music.skipped
        }
        return (assets, Manifest.Category(id: category.id, titles: category.titles, soundIDs: assets.map(\.id)), skipped)
    }

    /// The personalised category made for the tinnitus frequency `f`: Presets/personal/category.json (built in),
    /// a catalogue file whose one category has `"{frequencyHz}"` where a sound takes the frequency in Hz, and
    /// `{frequency}` in titles, written as in "Tone at 6.35 kHz". Its sounds: the pure tone, AM tones at 10
    /// and 40 Hz (Neff 2019), ½-octave narrow-band noise and its 10 Hz AM version, and white and pink noise
    /// with the octave around the frequency notched (Okamoto 2010).
    package static func personalCategory(frequencyHz f: Double) throws(ShadesError) -> PresetCategory {
        let file = "Presets/personal/category.json"
        let text = String(decoding: PackageResources.personal_json, as: UTF8.self)
            .replacing("\"{frequencyHz}\"", with: "\(f)")
            .replacing("{frequency}", with: formatHertz(f))
        let document = try PresetParser.parse(data: Data(text.utf8), file: file)
        guard document.categories.count == 1 else {
            throw ShadesError(path: file, message: "has \(document.categories.count) categories (allowed: the personalised one)")
        }
        return document.categories[0]
    }

    /// Notched-music assets for every readable sound file in `folder` (sorted by name): the file, one octave
    /// notched at the frequency, to its end, at the catalogue's loudness; and one line for each file skipped.
    static func music(in folder: String, frequencyHz f: Double, settings d: CatalogueDefaults, shape: SpectralShape? = nil) throws(ShadesError)
        -> (assets: [CatalogueAsset], skipped: [String]) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted() } catch {
            throw .usage("music folder \(folder) cannot be read")
        }
        let notch = NotchSpec(centreHz: f, widthOctaves: 1)
        do throws(ShadesError) { _ = try NotchDesign(notches: [notch], sampleRate: d.rate) } catch {
            throw .usage("tinnitus-frequency \(formatHertz(f)) cannot be notched at \(formatHertz(d.rate)): \(error.description)")
        }
        guard let container = Container(rawValue: d.format) else { throw .usage("format \(d.format) is not supported") }
        var assets: [CatalogueAsset] = []
        var skipped: [String] = []
        var used = Set<String>()
        for name in names {
            let path = folder + "/" + name
            let input: AudioFileInput
            do throws(ShadesError) { input = try AudioFileInput(path: path) } catch {
                skipped.append("skipped \(path): not a sound file libsndfile reads (\(error.message))")
                continue
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let stem = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : String(name[..<$0]) } ?? name
            var id = "music-" + readableID(stem)
            while used.contains(id) { id += "-" }
            used.insert(id)
            let bytes = (attributes?[.size] as? Int) ?? (attributes?[.size] as? UInt64).map { Int($0) } ?? (try? FileSystem.status(path)).map { Int($0.st_size) }
            let file = SoundFileReference(path: name, bytes: bytes, sampleRate: Double(input.sampleRate))
            let sound = Sound(.file(file), notches: [notch], shape: shape)
            let request = RenderRequest(sound: sound, durationSeconds: RenderRequest.untilEndOfFile, sampleRate: d.rate,
                                        layout: input.channelCount == 1 ? .mono : .stereo,
                                        level: .loudness(lufs: d.loudnessLUFS, truePeakCeilingDBTP: CatalogueLimits.maximumTruePeakDBTP))
            // A notch ≥ 100 dB deep needs 24 bits: 16-bit dither (about −140 dB/Hz) would fill it (measured 57–63 dB).
            var asset = CatalogueAsset(id: "personal-" + id, category: "personal",
                                       titles: ["en": "\(stem) without \(formatHertz(f))", "de": "\(stem) ohne \(formatHertz(f))"],
                                       request: request, container: container, sampleFormat: .s24, frequencyHz: f)
            asset.filesFolder = folder
            asset.filesModified = [(attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0]
            assets.append(asset)
        }
        guard !assets.isEmpty else { throw .usage("music folder \(folder) has no readable sound files (allowed: any format libsndfile reads)") }
        return (assets, skipped)
    }

    /// A file name as an id: lower case, accents dropped (ä → a, ß → ss), every run of other characters one
    /// '-', none at the ends, at most 40 characters ("Machine Wars (live)" → "machine-wars-live").
    package static func readableID(_ name: String) -> String {
        let folded: [Character: String] = ["ä": "a", "á": "a", "à": "a", "â": "a", "å": "a", "ã": "a", "æ": "ae", "ç": "c",
                                           "é": "e", "è": "e", "ê": "e", "ë": "e", "í": "i", "ì": "i", "î": "i", "ï": "i",
                                           "ñ": "n", "ö": "o", "ó": "o", "ò": "o", "ô": "o", "õ": "o", "ø": "o", "œ": "oe",
                                           "ß": "ss", "ü": "u", "ú": "u", "ù": "u", "û": "u", "ý": "y", "ÿ": "y"]
        var id = ""
        for character in name.lowercased() {
            let text = folded[character] ?? String(character)
            if text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                id += text
            } else if !id.isEmpty && !id.hasSuffix("-") {
                id += "-"
            }
        }
        while id.hasSuffix("-") { id.removeLast() }
        let cut = String(id.prefix(40))
        return cut.hasSuffix("-") ? String(cut.dropLast()) : (cut.isEmpty ? "file" : cut)
    }

    static func asset(id: String, category: String, titles: [String: String], request: RenderRequest,
                      settings: CatalogueDefaults) throws(ShadesError) -> CatalogueAsset {
        guard let container = Container(rawValue: settings.format), var sampleFormat = SampleFormat(rawValue: settings.sampleFormat) else {
            throw .usage("sound \(id): format \(settings.format) \(settings.sampleFormat) is not supported")
        }
        // A notched sound keeps its notch ≥ 100 dB deep in the file: 16-bit TPDF dither would fill it.
        if sampleFormat == .s16 && request.sound.hasNotch { sampleFormat = .s24 }
        return CatalogueAsset(id: id, category: category, titles: titles, request: request, container: container, sampleFormat: sampleFormat)
    }

    static func formatHertz(_ f: Double) -> String {
        f >= 1000 ? "\(formatNumber((f / 10).rounded() / 100)) kHz" : "\(formatNumber(f)) Hz"
    }
}

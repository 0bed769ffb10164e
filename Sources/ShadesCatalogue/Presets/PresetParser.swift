#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

/// Reads and checks catalogue files (`Presets/*.json`, schema in Presets/README.md). Every problem is one
/// line naming the file, line and column: syntax errors, unknown keys (with the nearest valid key), wrong
/// types and unknown names while reading (``parse(data:file:)``); ids, titles, duplicates and values the
/// library refuses at the sound's rate in ``validate(_:)``.
package enum PresetParser {
    /// Largest preset file read, in bytes (1 MiB; the shipped catalogue is about 4 kB, a thousand sounds
    /// about 300 kB). A larger file is refused before it is read: parsing 50 MB took 1.9 GB here.
    package static let maximumFileBytes = 1 << 20

    /// Reads every `*.json` in `folder`, sorted by name; file names in errors are `folder/name`.
    /// Stops at the first file with a problem (use ``loadCatalogue(folder:)`` for all problems).
    package static func load(folder: String) throws(ShadesError) -> [(file: String, document: CatalogueDocument)] {
        var documents: [(file: String, document: CatalogueDocument)] = []
        for file in try jsonFiles(in: folder) {
            try documents.append((file, parse(data: readFile(file, folder: folder), file: file)))
        }
        return documents
    }

    /// Reads and validates every `*.json` in `folder`: the documents, or every problem found (reading
    /// problems of every file, then, if all files were read, validation problems). What the builder calls
    /// before writing anything.
    package static func loadCatalogue(folder: String) throws(PresetErrors) -> [(file: String, document: CatalogueDocument)] {
        var documents: [(file: String, document: CatalogueDocument)] = []
        var errors: [ShadesError] = []
        let files: [String]
        do { files = try jsonFiles(in: folder) } catch { throw PresetErrors([error]) }
        for file in files {
            do { try documents.append((file, parse(data: readFile(file, folder: folder), file: file))) } catch { errors.append(error) }
        }
        if !errors.isEmpty { throw PresetErrors(errors) }
        try validate(documents)
        return documents
    }

    /// Parses one catalogue file; `file` names it in errors. Throws the first reading problem.
    package static func parse(data: Data, file: String) throws(ShadesError) -> CatalogueDocument {
        var scanner = JSONScanner(bytes: Array(data))
        let tree: JSONValue
        do { tree = try scanner.document() } catch { throw ShadesError(path: file, at: error.location, error.message) }
        let reader = DocumentReader(tree: JSONTreeReader(file: file))
        var document = try reader.document(tree)
        document.locations = reader.tree.locations
        return document
    }

    /// Checks documents read by ``parse(data:file:)`` together: every problem, one line each.
    package static func validate(_ documents: [(file: String, document: CatalogueDocument)]) throws(PresetErrors) {
        var errors: [ShadesError] = []
        var soundIDs: [String: String] = [:]      // id → "file:line" of its first use
        var categoryIDs: [String: String] = [:]
        for (file, document) in documents {
            func fail(_ path: String, _ message: String) {
                errors.append(ShadesError(path: file, at: document.location(of: path), message))
            }
            /// Checks an id and its titles at `path`, and records where the id was first used (across files).
            func register(_ id: String, titles: [String: String], kind: String, path: String, in firstUse: inout [String: String]) {
                checkID(id, kind: kind, path: path + ".id", fail: fail)
                if let first = firstUse[id] {
                    fail(path + ".id", "duplicate \(kind) id '\(id)' (first used at \(first))")
                } else {
                    firstUse[id] = file + (document.location(of: path + ".id").map { ":\($0.line)" } ?? "")
                }
                checkTitles(titles, owner: "\(kind) '\(id)'", path: path + ".titles", fail: fail)
            }
            validateSettings(document.defaults, path: "defaults", what: "defaults", fail: fail)
            for (c, category) in document.categories.enumerated() {
                let categoryPath = "categories[\(c)]"
                register(category.id, titles: category.titles, kind: "category", path: categoryPath, in: &categoryIDs)
                if category.sounds.isEmpty { fail(categoryPath + ".sounds", "category '\(category.id)' has no sounds") }
                for (s, sound) in category.sounds.enumerated() {
                    let path = "\(categoryPath).sounds[\(s)]"
                    register(sound.id, titles: sound.titles, kind: "sound", path: path, in: &soundIDs)
                    validateSound(sound, defaults: document.defaults, path: path, fail: fail)
                }
            }
        }
        if !errors.isEmpty { throw PresetErrors(errors) }
    }

    // MARK: Validation

    private static func checkID(_ id: String, kind: String, path: String, fail: (String, String) -> Void) {
        guard !PresetID.isValid(id) else { return }
        let shown = shownID(id)
        if id.contains("/") || id.contains("\\") || id.contains("..") {
            fail(path, "\(kind) id '\(shown)' would escape the output folder (allowed: a-z, 0-9, '-', '_')")
        } else if id.count > PresetID.maximumLength {
            fail(path, "\(kind) id '\(shown)' has \(id.count) characters (allowed: 1 … \(PresetID.maximumLength) of a-z, 0-9, '-', '_')")
        } else {
            fail(path, "\(kind) id '\(shown)' is not allowed (allowed: 1 … \(PresetID.maximumLength) of a-z, 0-9, '-', '_')")
        }
    }

    /// An id as an error shows it: control characters as `\u{N}`, and cut after 40 characters, so the
    /// message stays one short line whatever the file holds.
    static func shownID(_ id: String) -> String {
        let cut = id.count > 40 ? String(id.prefix(40)) + "…" : id
        return cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }

    private static func checkTitles(_ titles: [String: String], owner: String, path: String, fail: (String, String) -> Void) {
        for language in ["en", "de"] {
            if titles[language, default: ""].allSatisfy(\.isWhitespace) { fail(path, "\(owner) is missing its '\(language)' title (titles need at least 'en' and 'de')") }
        }
    }

    private static func validateSettings(_ settings: CatalogueDefaults, path: String, what: String,
                                         fail: (String, String) -> Void) {
        let loudness = settings.loudnessLUFS
        if !loudness.isFinite || !Parameter.loudness.range!.contains(loudness) {
            fail(path + ".loudnessLUFS", "\(what): loudnessLUFS \(loudness) is out of range (allowed: \(Parameter.loudness.range!))")
        }
        do throws(ShadesError) {
            try validateSampleRate(settings.rate)
            if settings.rate != settings.rate.rounded() {
                throw ShadesError(parameter: .rate, value: "\(settings.rate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
            }
        } catch { fail(path + ".rate", "\(what): \(error.described(naming: { presetKeys[$0] }))") }
        if settings.format == "flac" && settings.sampleFormat == "f32" {
            fail(path + ".sampleFormat", "\(what): sampleFormat 'f32' cannot be written as flac (allowed: s16, s24; or format wav)")
        }
        let length = settings.lengthSeconds
        if !length.isFinite || length <= 0 || length > 24 * 3600 {
            fail(path + ".lengthSeconds", "\(what): lengthSeconds \(length) is out of range (allowed: above 0 s, up to 86400 s)")
        }
    }

    private static func validateSound(_ sound: PresetSound, defaults: CatalogueDefaults, path: String,
                                      fail: (String, String) -> Void) {
        let owner = "sound '\(sound.id)'"
        let settings = sound.settings(defaults: defaults)
        var settingsValid = true
        validateSettings(settings, path: path, what: owner) { key, message in
            settingsValid = false
            fail(key, message)
        }
        guard settingsValid else { return }  // the sound's checks need a valid rate and length
        // Everything by the library's own rules, at this sound's rate, length and loop mode; a problem inside
        // a mix names its layer.
        do throws(ShadesError) { try sound.request(settings: settings).validate() } catch {
            let layers = error.layerPath.map { "layers[\($0)]" }
            let nodePath = ([path + ".sound"] + layers).joined(separator: ".")
            let layerOwner = error.layerPath.isEmpty ? owner : "\(owner) layer \(error.layerPath.map { String($0 + 1) }.joined(separator: "."))"
            var located = error
            located.layerPath = []
            fail(nodePath + "." + (error.parameter.flatMap { presetKeys[$0] } ?? "source"),
                 "\(layerOwner): \(located.described(naming: { presetKeys[$0] }))")
        }
    }

    /// The library's parameters as a preset names them: their JSON key paths (in a layer, or a sound's
    /// settings), for the error's words and its position.
    static let presetKeys: [ParameterID: String] = Sound.jsonKeys.merging(
        [.rate: "rate", .duration: "lengthSeconds", .loudness: "loudnessLUFS", .sampleFormat: "sampleFormat"]) { $1 }

    // MARK: Files

    private static func jsonFiles(in folder: String) throws(ShadesError) -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw ShadesError(path: folder, message: "cannot read the folder (\(fileSystemReason(error)))")
        }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(base)/\($0)" }
    }

    /// The bytes of `file`: a regular file of at most ``maximumFileBytes``, or a link to one inside `folder`
    /// (a link leading elsewhere is refused, so a preset folder cannot make the builder read other files).
    /// Opened without waiting (a FIFO named `*.json` is refused, not read forever).
    private static func readFile(_ file: String, folder: String) throws(ShadesError) -> Data {
        func unreadable(_ error: ShadesError) -> ShadesError {
            ShadesError(path: file, message: "cannot read the file (\(error.reason))")
        }
        func tooLarge(_ bytes: Int) -> ShadesError {
            ShadesError(path: file, message: "is \(formatNumber(Double(bytes) / 1e6, roundedTo: 1)) MB (allowed: up to 1 MB per preset file)")
        }
        var outside: String?  // where a link leads, if that is outside the folder
        do throws(ShadesError) {
            if (try FileSystem.linkStatus(file).st_mode & S_IFMT) == S_IFLNK {
                let target = try FileSystem.realPath(file), inside = try FileSystem.realPath(folder)
                if !target.hasPrefix(inside == "/" ? "/" : inside + "/") { outside = target }
            }
        } catch { throw unreadable(error) }
        if let outside {
            throw ShadesError(path: file, message: "is a link to \(outside), outside the preset folder (allowed: files inside \(folder))")
        }
        let descriptor: Int32, info: stat
        do throws(ShadesError) { descriptor = try FileSystem.open(file, O_RDONLY | O_NONBLOCK) } catch { throw unreadable(error) }
        defer { FileSystem.close(descriptor) }
        do throws(ShadesError) { info = try FileSystem.status(descriptor) } catch { throw unreadable(error) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw ShadesError(path: file, message: "is not a regular file (allowed: JSON files)") }
        guard Int(info.st_size) <= maximumFileBytes else { throw tooLarge(Int(info.st_size)) }
        let bytes: [UInt8]
        do throws(ShadesError) { bytes = try FileSystem.read(descriptor, upTo: maximumFileBytes + 1) } catch { throw unreadable(error) }
        guard bytes.count <= maximumFileBytes else { throw tooLarge(bytes.count) }  // it grew while read
        return Data(bytes)
    }
}

extension CatalogueDocument {
    /// Where `path` (or, failing that, its nearest recorded parent) starts in the file.
    func location(of path: String) -> SourceLocation? { JSONTreeReader.location(of: path, in: locations) }
}

// MARK: - Reading the tree into the model

/// Walks the JSON tree with the schema's keys (``JSONTreeReader``); a sound is read by ``SoundReader``.
private struct DocumentReader {
    let tree: JSONTreeReader

    func document(_ value: JSONValue) throws(ShadesError) -> CatalogueDocument {
        let object = try tree.object(value, path: "", what: "the catalogue", keys: ["defaults", "categories"])
        var defaults = CatalogueDefaults()
        if let value = object["defaults"] {
            let d = try tree.object(value, path: "defaults", what: "defaults",
                                    keys: ["loudnessLUFS", "rate", "format", "sampleFormat", "lengthSeconds"])
            defaults.loudnessLUFS = try d.number("loudnessLUFS") ?? defaults.loudnessLUFS
            defaults.rate = try d.number("rate", form: .hertz) ?? defaults.rate
            defaults.format = try d.choice("format", CatalogueDefaults.formats) ?? defaults.format
            defaults.sampleFormat = try d.choice("sampleFormat", CatalogueDefaults.sampleFormats) ?? defaults.sampleFormat
            defaults.lengthSeconds = try d.number("lengthSeconds") ?? defaults.lengthSeconds
        }
        var categories: [PresetCategory] = []
        for (index, item) in try object.array("categories", required: true).enumerated() {
            categories.append(try category(item, path: "categories[\(index)]"))
        }
        return CatalogueDocument(defaults: defaults, categories: categories)
    }

    private func category(_ value: JSONValue, path: String) throws(ShadesError) -> PresetCategory {
        let c = try tree.object(value, path: path, what: "a category", keys: ["id", "titles", "sounds"])
        let id = try c.string("id", required: true)!
        let titles = try titles(c)
        var sounds: [PresetSound] = []
        for (index, item) in try c.array("sounds", required: true).enumerated() {
            sounds.append(try sound(item, path: "\(path).sounds[\(index)]"))
        }
        return PresetCategory(id: id, titles: titles, sounds: sounds)
    }

    private func sound(_ value: JSONValue, path: String) throws(ShadesError) -> PresetSound {
        if case .object(let members) = value.kind, let old = members.first(where: { $0.key == "recipe" }) {
            throw tree.error(old.keyLocation, "key 'recipe' is now 'sound' (a recipe's keys are a sound's: see Presets/README.md)")
        }
        let s = try tree.object(value, path: path, what: "a sound",
                                keys: ["id", "titles", "sound", "lengthSeconds", "loop", "loudnessLUFS", "rate", "format", "sampleFormat"])
        let id = try s.string("id", required: true)!
        let titles = try titles(s)
        guard let soundValue = s["sound"] else { throw s.missing("sound") }
        return PresetSound(id: id, titles: titles, sound: try SoundReader(reader: tree).sound(soundValue, path: path + ".sound"),
                           lengthSeconds: try s.number("lengthSeconds"), loop: try s.bool("loop") ?? true,
                           loudnessLUFS: try s.number("loudnessLUFS"), rate: try s.number("rate", form: .hertz),
                           format: try s.choice("format", CatalogueDefaults.formats),
                           sampleFormat: try s.choice("sampleFormat", CatalogueDefaults.sampleFormats))
    }

    private func titles(_ owner: JSONObjectReader) throws(ShadesError) -> [String: String] {
        guard let value = owner["titles"] else { throw owner.missing("titles") }
        guard case .object(let members) = value.kind else {
            throw tree.error(value.location, "'titles' must be an object of language code → title, not \(value.kind.name)")
        }
        var titles: [String: String] = [:]
        for member in members {
            guard case .string(let title) = member.value.kind else {
                throw tree.error(member.value.location, "title '\(member.key)' must be a string, not \(member.value.kind.name)")
            }
            titles[member.key] = title
        }
        return titles
    }
}

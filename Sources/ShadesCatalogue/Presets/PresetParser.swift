import FoundationEssentials
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

/// Reads and checks catalogue files (`Presets/*.json`, schema in Presets/README.md). Every problem is one
/// line naming the file, line and column: syntax errors, unknown keys (with the nearest valid key), wrong
/// types and unknown names while reading (``parse(data:file:)``); ids, titles, duplicates and values the
/// library refuses at the sound's rate in ``validate(_:)``.
public enum PresetParser {
    /// Largest preset file read, in bytes (1 MiB; the shipped catalogue is about 4 kB, a thousand sounds
    /// about 300 kB). A larger file is refused before it is read: parsing 50 MB took 1.9 GB here.
    public static let maximumFileBytes = 1 << 20

    /// Reads every `*.json` in `folder`, sorted by name; file names in errors are `folder/name`.
    /// Stops at the first file with a problem (use ``loadCatalogue(folder:)`` for all problems).
    public static func load(folder: String) throws(ShadesError) -> [(file: String, document: CatalogueDocument)] {
        var documents: [(file: String, document: CatalogueDocument)] = []
        for file in try jsonFiles(in: folder) {
            try documents.append((file, parse(data: readFile(file, folder: folder), file: file)))
        }
        return documents
    }

    /// Reads and validates every `*.json` in `folder`: the documents, or every problem found (reading
    /// problems of every file, then, if all files were read, validation problems). What the builder calls
    /// before writing anything.
    public static func loadCatalogue(folder: String) throws(PresetErrors) -> [(file: String, document: CatalogueDocument)] {
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
    public static func parse(data: Data, file: String) throws(ShadesError) -> CatalogueDocument {
        var scanner = JSONScanner(bytes: Array(data))
        let tree: JSONValue
        do { tree = try scanner.document() } catch { throw ShadesError(path: file, at: error.location, error.message) }
        let reader = DocumentReader(file: file)
        let document = try reader.document(tree)
        var result = document
        result.locations = reader.locations
        return result
    }

    /// Checks documents read by ``parse(data:file:)`` together: every problem, one line each.
    public static func validate(_ documents: [(file: String, document: CatalogueDocument)]) throws(PresetErrors) {
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
        if !loudness.isFinite || !CatalogueDefaults.allowedLoudnessLUFS.contains(loudness) {
            fail(path + ".loudnessLUFS", "\(what): loudnessLUFS \(loudness) is out of range (allowed: -60 … -5 LUFS)")
        }
        do throws(ShadesError) {
            try validateSampleRate(settings.rate)
            if settings.rate != settings.rate.rounded() {
                throw ShadesError(parameter: "rate", value: "\(settings.rate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
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
        let recipe = sound.recipe, recipePath = path + ".recipe"
        if recipe.layers.isEmpty { fail(recipePath + ".layers", "\(owner) has no layers (allowed: one or more)") }
        guard settingsValid else { return }  // layer checks need a valid rate and length
        for (index, layer) in recipe.layers.enumerated() {
            let layerPath = "\(recipePath).layers[\(index)]"
            let layerOwner = recipe.layers.count > 1 ? "\(owner) layer \(index + 1)" : owner
            if !layer.gainDB.isFinite || !Layer.allowedGainDB.contains(layer.gainDB) {
                fail(layerPath + ".gainDB", "\(layerOwner): gainDB \(layer.gainDB) is out of range (allowed: -60 … 0 dB)")
            }
            if let swell = layer.swell {
                if !swell.periodSeconds.isFinite || !Swell.allowedPeriodSeconds.contains(swell.periodSeconds) {
                    fail(layerPath + ".swell.periodSeconds",
                         "\(layerOwner): swell periodSeconds \(swell.periodSeconds) is out of range (allowed: 2 … 60 s)")
                }
                if !swell.depth.isFinite || !Swell.allowedDepth.contains(swell.depth) {
                    fail(layerPath + ".swell.depth", "\(layerOwner): swell depth \(swell.depth) is out of range (allowed: 0 … 1)")
                }
            }
            // Everything else by the library's own rules, at this sound's rate, length and loop mode.
            let request = layer.renderRequest(recipe: recipe, loop: sound.loop, settings: settings, seed: recipe.seed)
            do throws(ShadesError) { try request.validate() } catch {
                fail(layerPath + "." + (error.parameter.flatMap { presetKeys[$0] } ?? "source"),
                     "\(layerOwner): \(error.described(naming: { presetKeys[$0] }))")
            }
        }
    }

    /// The library's parameters as a preset names them: their JSON key paths (in a layer, or a sound's
    /// settings), for the error's words and its position.
    static let presetKeys: [ParameterID: String] = [
        .rate: "rate", .duration: "lengthSeconds", .loudness: "loudnessLUFS", .sampleFormat: "sampleFormat",
        .layout: "channels", .seed: "seed", .beta: "beta", .frequency: "frequency", .width: "width",
        .amRate: "am.rateHz", .amDepth: "am.depth", .amPhase: "am.startPhase",
        .notchCentre: "notch.centreHz", .notchWidth: "notch.widthOctaves", .edgeBoost: "notch.edgeBoostDB",
        .edgeWidth: "notch.edgeWidthOctaves", .swellPeriod: "swell.periodSeconds", .swellDepth: "swell.depth",
        .fade: "fades", .fadeIn: "fades.inSeconds", .fadeOut: "fades.outSeconds",
    ]

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
    func location(of path: String) -> SourceLocation? {
        var path = Substring(path)
        while !path.isEmpty {
            if let location = locations[String(path)] { return location }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = path[..<cut]
        }
        return nil
    }
}

// MARK: - Reading the tree into the model

/// Walks the JSON tree with the schema's keys, recording where each path starts.
private final class DocumentReader {
    let file: String
    var locations: [String: SourceLocation] = [:]

    init(file: String) { self.file = file }

    func document(_ value: JSONValue) throws(ShadesError) -> CatalogueDocument {
        let object = try self.object(value, path: "", what: "the catalogue", keys: ["defaults", "categories"])
        var defaults = CatalogueDefaults()
        if let value = object["defaults"] {
            let d = try self.object(value, path: "defaults", what: "defaults",
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
        let c = try object(value, path: path, what: "a category", keys: ["id", "titles", "sounds"])
        let id = try c.string("id", required: true)!
        let titles = try titles(c)
        var sounds: [PresetSound] = []
        for (index, item) in try c.array("sounds", required: true).enumerated() {
            sounds.append(try sound(item, path: "\(path).sounds[\(index)]"))
        }
        return PresetCategory(id: id, titles: titles, sounds: sounds)
    }

    private func sound(_ value: JSONValue, path: String) throws(ShadesError) -> PresetSound {
        let s = try object(value, path: path, what: "a sound",
                           keys: ["id", "titles", "recipe", "lengthSeconds", "loop", "loudnessLUFS", "rate", "format", "sampleFormat"])
        let id = try s.string("id", required: true)!
        let titles = try titles(s)
        guard let recipeValue = s["recipe"] else { throw s.missing("recipe") }
        return PresetSound(id: id, titles: titles, recipe: try recipe(recipeValue, path: path + ".recipe"),
                           lengthSeconds: try s.number("lengthSeconds"), loop: try s.bool("loop") ?? true,
                           loudnessLUFS: try s.number("loudnessLUFS"), rate: try s.number("rate", form: .hertz),
                           format: try s.choice("format", CatalogueDefaults.formats),
                           sampleFormat: try s.choice("sampleFormat", CatalogueDefaults.sampleFormats))
    }

    private func titles(_ owner: ObjectReader) throws(ShadesError) -> [String: String] {
        guard let value = owner["titles"] else { throw owner.missing("titles") }
        guard case .object(let members) = value.kind else {
            throw error(value.location, "'titles' must be an object of language code → title, not \(value.kind.name)")
        }
        var titles: [String: String] = [:]
        for member in members {
            guard case .string(let title) = member.value.kind else {
                throw error(member.value.location, "title '\(member.key)' must be a string, not \(member.value.kind.name)")
            }
            titles[member.key] = title
        }
        return titles
    }

    private func recipe(_ value: JSONValue, path: String) throws(ShadesError) -> Recipe {
        let r = try object(value, path: path, what: "a recipe", keys: ["layers", "channels", "seed", "fades"])
        var layers: [Layer] = []
        for (index, item) in try r.array("layers", required: true).enumerated() {
            layers.append(try layer(item, path: "\(path).layers[\(index)]"))
        }
        var channels = ChannelLayout.stereo
        if let name = try r.choice("channels", ChannelLayout.allCases.map(\.rawValue)) { channels = ChannelLayout(rawValue: name)! }
        var fades: Fades?
        if let value = r["fades"] {
            let f = try object(value, path: path + ".fades", what: "fades", keys: ["inSeconds", "outSeconds"])
            fades = Fades(inSeconds: try f.number("inSeconds") ?? 0, outSeconds: try f.number("outSeconds") ?? 0)
        }
        return Recipe(layers: layers, channels: channels, seed: try r.unsigned("seed") ?? 1, fades: fades)
    }

    private func layer(_ value: JSONValue, path: String) throws(ShadesError) -> Layer {
        let l = try object(value, path: path, what: "a layer",
                           keys: ["source", "beta", "frequency", "width", "gainDB", "am", "notch", "swell"])
        let name = try l.string("source", required: true)!
        let extras: [String]
        let source: LayerSource
        switch name {
        case "noise":
            guard let beta = try l.number("beta") else {
                throw l.missing("beta", because: "source 'noise' needs a spectral exponent beta, -2 … 2")
            }
            do throws(ShadesError) { source = .colour(try NoiseColour(beta: beta)) } catch {
                throw self.error(l.location(of: "beta"), "\(error)")
            }
            extras = ["beta"]
        case "tone":
            guard let frequency = try l.number("frequency", form: .hertz) else {
                throw l.missing("frequency", because: "source 'tone' needs a frequency")
            }
            source = .tone(frequencyHz: frequency)
            extras = ["frequency"]
        case "nbn":
            guard let frequency = try l.number("frequency", form: .hertz) else {
                throw l.missing("frequency", because: "source 'nbn' needs a centre frequency")
            }
            source = .nbn(centreHz: frequency, widthOctaves: try l.number("width") ?? 0.5)
            extras = ["frequency", "width"]
        case "grey":
            source = .grey
            extras = []
        default:
            if let colour = NoiseColour.named.first(where: { $0.name == name })?.colour {
                source = .colour(colour)
                extras = []
            } else {
                throw error(l["source"]?.location, "unknown source '\(name)'"
                            + suggestion(for: name, among: LayerSource.names, noun: "sources"))
            }
        }
        for key in ["beta", "frequency", "width"] where l[key] != nil && !extras.contains(key) {
            throw error(l.location(of: key), "key '\(key)' does not apply to source '\(name)'")
        }
        var layer = Layer(source: source, gainDB: try l.number("gainDB") ?? 0)
        if let value = l["am"] {
            let a = try object(value, path: path + ".am", what: "am", keys: ["rateHz", "depth", "startPhase", "keep"])
            var keep = AmplitudeModulationLevel.rms
            if let name = try a.choice("keep", AmplitudeModulationLevel.allCases.map(\.rawValue)) {
                keep = AmplitudeModulationLevel(rawValue: name)!
            }
            layer.am = Modulation(rateHz: try a.number("rateHz", form: .hertz) ?? 10, depth: try a.number("depth") ?? 1,
                                  startPhase: try a.number("startPhase") ?? 0, keep: keep)
        }
        if let value = l["notch"] {
            guard case .array(let items) = value.kind else {
                throw error(value.location, "'notch' must be an array of notches, not \(value.kind.name)")
            }
            var notches: [NotchSpec] = []
            for (index, item) in items.enumerated() {
                let n = try object(item, path: "\(path).notch[\(index)]", what: "a notch",
                                   keys: ["centreHz", "widthOctaves", "edgeBoostDB", "edgeWidthOctaves"])
                guard let centre = try n.number("centreHz", form: .hertz) else { throw n.missing("centreHz") }
                notches.append(NotchSpec(centreHz: centre, widthOctaves: try n.number("widthOctaves") ?? 1,
                                         edgeBoostDB: try n.number("edgeBoostDB") ?? 0,
                                         edgeWidthOctaves: try n.number("edgeWidthOctaves") ?? 0.375))
            }
            layer.notch = notches
        }
        if let value = l["swell"] {
            let s = try object(value, path: path + ".swell", what: "swell", keys: ["periodSeconds", "depth"])
            guard let period = try s.number("periodSeconds") else { throw s.missing("periodSeconds") }
            layer.swell = Swell(periodSeconds: period, depth: try s.number("depth") ?? 0.5)
        }
        return layer
    }

    // MARK: Helpers

    func error(_ location: SourceLocation?, _ message: String) -> ShadesError {
        ShadesError(path: file, at: location, message)
    }

    /// `value` as an object whose keys must all be in `keys`; records the path's and each key's location.
    private func object(_ value: JSONValue, path: String, what: String, keys: [String]) throws(ShadesError) -> ObjectReader {
        guard case .object(let members) = value.kind else {
            throw error(value.location, "\(what) must be an object, not \(value.kind.name)")
        }
        locations[path] = value.location
        var byKey: [String: Member] = [:]
        for member in members {
            guard keys.contains(member.key) else {
                throw error(member.keyLocation, "unknown key '\(member.key)'" + suggestion(for: member.key, among: keys, noun: "keys"))
            }
            if byKey[member.key] != nil { throw error(member.keyLocation, "duplicate key '\(member.key)'") }
            byKey[member.key] = member
            locations[path.isEmpty ? member.key : "\(path).\(member.key)"] = member.keyLocation
        }
        return ObjectReader(reader: self, path: path, what: what, location: value.location, members: byKey)
    }
}

/// One JSON object being read: typed getters whose errors name the key and its position.
private struct ObjectReader {
    let reader: DocumentReader
    let path: String
    let what: String
    let location: SourceLocation
    let members: [String: Member]

    enum NumberForm { case plain, hertz }

    subscript(key: String) -> JSONValue? { members[key]?.value }

    func location(of key: String) -> SourceLocation? { members[key]?.keyLocation }

    func missing(_ key: String, because reason: String? = nil) -> ShadesError {
        reader.error(location, "missing key '\(key)' in \(what)" + (reason.map { " (\($0))" } ?? ""))
    }

    private func wrongType(_ key: String, _ value: JSONValue, expected: String) -> ShadesError {
        reader.error(value.location, "'\(key)' must be \(expected), not \(value.kind.name)")
    }

    func string(_ key: String, required: Bool = false) throws(ShadesError) -> String? {
        guard let value = self[key] else { if required { throw missing(key) } else { return nil } }
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: "a string") }
        return text
    }

    /// A string that must be one of `allowed`.
    func choice(_ key: String, _ allowed: [String]) throws(ShadesError) -> String? {
        guard let text = try string(key) else { return nil }
        guard allowed.contains(text) else {
            throw reader.error(self[key]!.location, "unknown \(key) '\(text)'" + suggestion(for: text, among: allowed, noun: "values"))
        }
        return text
    }

    func bool(_ key: String) throws(ShadesError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let flag) = value.kind else { throw wrongType(key, value, expected: "true or false") }
        return flag
    }

    /// A number; with `.hertz` also a string such as "6kHz" or "440Hz".
    func number(_ key: String, form: NumberForm = .plain) throws(ShadesError) -> Double? {
        guard let value = self[key] else { return nil }
        switch value.kind {
        case .number(let number, _): return number
        case .string(let text) where form == .hertz:
            do throws(ShadesError) { return try ValueParsing.hertz(text, parameter: ParameterID(rawValue: key)) } catch {
                throw reader.error(value.location, "\(error)")
            }
        default:
            throw wrongType(key, value, expected: form == .hertz ? "a number of Hz or a string such as \"6kHz\"" : "a number")
        }
    }

    /// A whole number 0 … 2^64 − 1 (seed).
    func unsigned(_ key: String) throws(ShadesError) -> UInt64? {
        guard let value = self[key] else { return nil }
        guard case .number(_, let text) = value.kind, let whole = UInt64(text) else {
            throw wrongType(key, value, expected: "a whole number 0 … 18446744073709551615")
        }
        return whole
    }

    func array(_ key: String, required: Bool) throws(ShadesError) -> [JSONValue] {
        guard let value = self[key] else { if required { throw missing(key) } else { return [] } }
        guard case .array(let items) = value.kind else { throw wrongType(key, value, expected: "an array") }
        return items
    }
}

/// " (did you mean 'x'?)" for the nearest name within 3 edits, else " (allowed <noun>: a, b, c)".
func suggestion(for name: String, among names: [String], noun: String) -> String {
    let scored = names.map { (name: $0, distance: levenshtein(name.lowercased(), $0.lowercased())) }
    if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 3 {
        return " (did you mean '\(best.name)'?)"
    }
    return " (allowed \(noun): \(names.joined(separator: ", ")))"
}

/// Edit distance (insertions, deletions, substitutions) between two strings, by Unicode scalar.
func levenshtein(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

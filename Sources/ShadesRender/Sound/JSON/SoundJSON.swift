#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP

// The JSON form of a `Sound`: one schema, read by `SoundReader` (presets, `--sound FILE.json`, the
// manifest through `Codable`) and written by `Sound.encode(to:)`. Presets/README.md documents it.
//
//   { "source": "pink", "am": { "rateHz": 10 } }
//   { "source": "tone", "frequency": "6kHz", "pulses": { "onSeconds": 0.2, "offSeconds": 0.2 } }
//   { "seed": 11, "layers": [ { "source": "noise", "beta": -0.5, "swell": { "periodSeconds": 12 } },
//                             { "source": "pink", "gainDB": -9 } ] }
//   { "source": "file", "path": "music/song.mp3", "notch": [ { "centreHz": 6000 } ] }

extension Sound {
    /// Source names of the JSON form, in the order help texts list them: the generators', then "file".
    package static var sourceNames: [String] { Generator.sourceNames + [SoundFileReference.sourceName] }

    /// Reads a sound from JSON text; `file` names the text in errors (`sound.json:3:12: …`).
    public static func parse(json bytes: [UInt8], file: String) throws(ShadesError) -> Sound {
        try SoundDocument(json: bytes, file: file).sound
    }

    /// The sound's parameters as its JSON form names them: key paths inside a sound object (or a layer):
    /// the modifiers' and each generator field's.
    package static let jsonKeys: [ParameterID: String] = {
        var keys: [ParameterID: String] = [.layerGain: Mix.layerKeys[0], .ears: Mix.layerKeys[1]]
        for row in Sound.modifierKinds.flatMap({ $0.parameters }) where keys[row.parameter] == nil { keys[row.parameter] = row.key }
        for kind in Generator.kinds {
            for row in kind.keyRows where keys[row.parameter.id] == nil { keys[row.parameter.id] = row.key }
        }
        return keys
    }()

    /// The JSON form on one line with sorted keys (comments, messages, cache keys).
    package var compactJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// Keys every sound object may have besides its source's (the modifiers).
    static var modifierKeys: [String] { modifierKinds.map { $0.key } }
    /// The key that asks for a sound's sham twin (``shamTwin()``), in any sound object: `"sham": true`.
    static let shamKey = "sham"

    /// Keys of the generators' fields, each once (not ``shamKey``, every sound's, though ripple keeps its own
    /// sham among its fields).
    static var allSourceKeys: [String] {
        var seen: Set<String> = [shamKey]
        return Generator.kinds.flatMap { $0.keyRows.map(\.key) }.filter { seen.insert($0).inserted } + SoundFileReference.keys
    }
}

/// A sound read from a JSON file, with where each of its keys is: a problem found when the sound is
/// checked at a rate and length (``RenderRequest/validate()``) is placed at the key that gave the value.
package struct SoundDocument {
    package let sound: Sound
    package let file: String
    /// Where each key path of the file starts.
    package let locations: [String: SourceLocation]

    /// Reads the sound in `bytes`; `file` names it in errors.
    package init(json bytes: [UInt8], file: String) throws(ShadesError) {
        var scanner = JSONScanner(bytes: bytes)
        let tree: JSONValue
        do { tree = try scanner.document() } catch { throw ShadesError(path: file, at: error.location, error.message) }
        let reader = JSONTreeReader(file: file)
        sound = try SoundReader(reader: reader).sound(tree, path: "")
        (self.file, locations) = (file, reader.locations)
    }

    /// `error` at the key that gave its value, named by that key (`sound.json:2:3: frequency 1e+30 Hz is out
    /// of range (…)`), when the file gives it; else `error` as it is (a command line's own option, such as
    /// the duration).
    package func locate(_ error: ShadesError) -> ShadesError {
        error.locatedInSound(at: "", file: file, locations: locations) ?? error
    }
}

extension ShadesError {
    /// This problem of a sound read from JSON at `soundPath` (a key path; "" for a whole file) as a line at
    /// its key: the file, line and column, then the problem with the parameters named by their keys
    /// (``Sound/jsonKeys``), after `owner` ("sound 'rain'") and its layer. Nil when the sound's JSON does
    /// not give the parameter (its key is absent): the problem is not the file's.
    package func locatedInSound(at soundPath: String, file: String, locations: [String: SourceLocation],
                                owner: String? = nil) -> ShadesError? {
        guard let parameter, let key = Sound.jsonKeys[parameter] else { return nil }
        let node = ([soundPath.isEmpty ? nil : soundPath] + layerPath.map { "layers[\($0)]" }).compactMap { $0 }.joined(separator: ".")
        func path(_ key: Substring) -> String { node.isEmpty ? String(key) : node + "." + key }
        let first = key.prefix { $0 != "." }
        guard locations[path(first)] != nil else { return nil }
        var body = self
        body.layerPath = []
        (body.path, body.line, body.column) = (nil, nil, nil)
        let layer = layerPath.isEmpty ? nil : "layer \(layerPath.map { String($0 + 1) }.joined(separator: "."))"
        let prefix = [owner, layer].compactMap { $0 }.joined(separator: " ")
        let text = body.described(naming: { Sound.jsonKeys[$0] })
        var located = ShadesError(path: file, at: JSONTreeReader.location(of: path(Substring(key)), in: locations),
                                  prefix.isEmpty ? text : "\(prefix): \(text)")
        (located.kind, located.parameter) = (kind, parameter)
        return located
    }
}

/// Reads ``Sound``s from a JSON tree; every error names its key's position (through the tree reader).
package struct SoundReader {
    package let reader: JSONTreeReader

    package init(reader: JSONTreeReader) { self.reader = reader }

    /// The sound at `path`; `isLayer` allows the layer keys (gain, ears) and returns them.
    package func sound(_ value: JSONValue, path: String) throws(ShadesError) -> Sound {
        try node(value, path: path, isLayer: false).sound
    }

    private func node(_ value: JSONValue, path: String, isLayer: Bool) throws(ShadesError) -> Layer {
        let allowed = ["source", "layers"] + Sound.allSourceKeys + Sound.modifierKeys + [Sound.shamKey] + (isLayer ? Mix.layerKeys : [])
        let o = try reader.object(value, path: path, what: isLayer ? "a layer" : "a sound", keys: allowed)
        var sound: Sound
        switch (o["source"], o["layers"]) {
        case (.some, .some):
            throw reader.error(o.location(of: "layers"), "a sound has 'source' or 'layers', not both")
        case (nil, nil):
            throw o.missing("source", because: "or 'layers' for a mix")
        case (nil, .some):
            sound = Sound(try Mix.read(o, reader: reader) { (item, path) throws(ShadesError) in try node(item, path: path, isLayer: true) })
        case (.some, nil):
            sound = Sound(try source(o))
        }
        try modifiers(o, into: &sound)
        if try o.bool(Sound.shamKey) == true {
            do throws(ShadesError) { sound = try sound.shamTwin() } catch {
                throw reader.error(o.location(of: Sound.shamKey), error.message)
            }
        }
        var layer = Layer(sound)
        if isLayer { try layer.readPlacement(o) }
        return layer
    }

    private func source(_ o: JSONObjectReader) throws(ShadesError) -> Sound.Source {
        let name = try o.string("source", required: true)!
        let keys: [String]
        if name == SoundFileReference.sourceName {
            keys = SoundFileReference.keys
        } else if let kind = Generator.kind(named: name) {
            keys = kind.keys(for: name)
        } else {
            throw reader.error(o["source"]?.location, "unknown source '\(name)'" + suggestion(for: name, among: Sound.sourceNames, noun: "sources"))
        }
        for key in Sound.allSourceKeys where o[key] != nil && !keys.contains(key) {
            throw reader.error(o.location(of: key), "key '\(key)' does not apply to source '\(name)'")
        }
        guard name == SoundFileReference.sourceName else { return .generator(try Generator.read(name, from: o)!) }
        return .file(try SoundFileReference.read(o, reader: reader))
    }

    private func modifiers(_ o: JSONObjectReader, into sound: inout Sound) throws(ShadesError) {
        for kind in Sound.modifierKinds { try kind.read(from: o, into: &sound) }
    }
}

// MARK: - Codable: the same JSON

extension Sound: Codable {
    /// Reads the JSON form through `SoundReader` (errors carry no position: a decoder has none).
    public init(from decoder: any Decoder) throws {
        let tree = try JSONValue(from: decoder)
        do throws(ShadesError) { self = try SoundReader(reader: JSONTreeReader(file: nil)).sound(tree, path: "") } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// Writes the JSON form: the source's keys, then the modifiers that are set.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try encodeFields(into: &c)
    }

    func encodeFields(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        try source.kind.encodeSource(into: &c)
        for kind in Sound.modifierKinds { try kind.encode(self, into: &c) }
    }
}

/// A key of the JSON form, by name.
struct JSONKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { stringValue = value }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension JSONValue: Decodable {
    /// Any JSON value through a decoder (keys in the decoder's order; no positions).
    package init(from decoder: any Decoder) throws {
        let unknown = SourceLocation(line: 0, column: 0)
        if let object = try? decoder.container(keyedBy: JSONKey.self) {
            var members: [Member] = []
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members.append(Member(key: key.stringValue, keyLocation: unknown,
                                      value: try object.decode(JSONValue.self, forKey: key)))
            }
            self.init(kind: .object(members), location: unknown)
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self.init(kind: .array(items), location: unknown)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self.init(kind: .null, location: unknown)
            } else if let flag = try? single.decode(Bool.self) {
                self.init(kind: .bool(flag), location: unknown)
            } else if let whole = try? single.decode(UInt64.self) {
                self.init(kind: .number(Double(whole), String(whole)), location: unknown)
            } else if let whole = try? single.decode(Int64.self) {
                self.init(kind: .number(Double(whole), String(whole)), location: unknown)
            } else if let number = try? single.decode(Double.self) {
                self.init(kind: .number(number, "\(number)"), location: unknown)
            } else {
                self.init(kind: .string(try single.decode(String.self)), location: unknown)
            }
        }
    }
}

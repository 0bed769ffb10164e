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
//   { "source": "binaural", "carrier": 200, "beat": 10 }
//   { "source": "fractal", "scale": "pentatonic", "low": "523.25Hz", "high": "2093Hz", "tempoBPM": 80 }

extension Sound {
    /// Source names of the JSON form, in the order help texts list them.
    package static let sourceNames = ["white", "pink", "brown", "blue", "violet", "noise", "grey", "velvet", "tone", "nbn",
                                      "binaural", "isochronic", "fractal", "cr", "ripple", "file"]

    /// Reads a sound from JSON text; `file` names the text in errors (`sound.json:3:12: …`).
    public static func parse(json bytes: [UInt8], file: String) throws(ShadesError) -> Sound {
        try SoundDocument(json: bytes, file: file).sound
    }

    /// The sound's parameters as its JSON form names them: key paths inside a sound object (or a layer).
    package static let jsonKeys: [ParameterID: String] = [
        .layout: "channels", .seed: "seed", .beta: "beta", .distribution: "distribution", .frequency: "frequency", .width: "width",
        .amRate: "am.rateHz", .amDepth: "am.depth", .amPhase: "am.startPhase",
        .notchCentre: "notch.centreHz", .notchWidth: "notch.widthOctaves", .edgeBoost: "notch.edgeBoostDB",
        .edgeWidth: "notch.edgeWidthOctaves", .swellPeriod: "swell.periodSeconds", .swellDepth: "swell.depth",
        .fade: "fades", .fadeIn: "fades.inSeconds", .fadeOut: "fades.outSeconds", .fadeEnd: "fades.endSeconds",
        .layerGain: "gainDB", .ears: "ears", .channels: "channels", .pulse: "pulses", .pulseOn: "pulses.onSeconds",
        .pulseOff: "pulses.offSeconds", .ramp: "pulses.rampSeconds", .pulseCount: "pulses.count",
        .toneLength: "toneSeconds", .toneRamp: "rampSeconds", .cycleRate: "cycleRateHz", .onCycles: "onCycles",
        .offCycles: "offCycles", .toneGains: "toneGainsDB", .bandGains: "bandGainsDB",
        .carrier: "carrier", .beat: "beat", .duty: "duty", .isochronicRamp: "rampSeconds", .density: "density",
        .scale: "scale", .lowPitch: "low", .highPitch: "high", .tempo: "tempoBPM", .shape: "shape",
    ]

    /// The JSON form on one line with sorted keys (comments, messages, cache keys).
    package var compactJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// Keys every sound object may have besides its source's (the modifiers).
    static let modifierKeys = ["notch", "shape", "am", "pulses", "fades", "swell", "channels", "seed"]
    /// Keys a layer of a mix adds.
    static let layerKeys = ["gainDB", "ears"]
    /// Keys of each source (beyond "source").
    static let sourceKeys: [String: [String]] = [
        "white": ["distribution"], "pink": [], "brown": [], "blue": [], "violet": [], "grey": [],
        "noise": ["beta", "distribution"],
        "tone": ["frequency"],
        "nbn": ["frequency", "width"],
        "cr": ["frequency", "toneSet", "toneSeconds", "rampSeconds", "cycleRateHz", "onCycles", "offCycles", "toneGainsDB"],
        "ripple": ["frequency", "condition", "sham", "bandGainsDB"],
        "binaural": ["carrier", "beat"],
        "isochronic": ["frequency", "beat", "duty", "rampSeconds"],
        "velvet": ["density"],
        "fractal": ["scale", "low", "high", "tempoBPM"],
        "file": ["path", "bytes", "frames", "sampleRate"],
    ]
    static var allSourceKeys: [String] {
        var seen = Set<String>()
        return sourceNames.flatMap { sourceKeys[$0]! }.filter { seen.insert($0).inserted }
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
        let allowed = ["source", "layers"] + Sound.allSourceKeys + Sound.modifierKeys + (isLayer ? Sound.layerKeys : [])
        let o = try reader.object(value, path: path, what: isLayer ? "a layer" : "a sound", keys: allowed)
        var sound: Sound
        switch (o["source"], o["layers"]) {
        case (.some, .some):
            throw reader.error(o.location(of: "layers"), "a sound has 'source' or 'layers', not both")
        case (nil, nil):
            throw o.missing("source", because: "or 'layers' for a mix")
        case (nil, .some):
            var layers: [Layer] = []
            for (index, item) in try o.array("layers", required: true).enumerated() {
                layers.append(try node(item, path: o.path(of: "layers") + "[\(index)]", isLayer: true))
            }
            if layers.isEmpty { throw reader.error(o.location(of: "layers"), "'layers' is empty (allowed: one or more layers)") }
            for key in Sound.allSourceKeys where o[key] != nil {
                throw reader.error(o.location(of: key), "key '\(key)' does not apply to a mix (it belongs to a layer's source)")
            }
            sound = Sound(.mix(layers))
        case (.some, nil):
            sound = Sound(try source(o))
        }
        try modifiers(o, into: &sound)
        var layer = Layer(sound)
        if isLayer {
            layer.gainDB = try o.number("gainDB") ?? 0
            layer.ears = try o.choice("ears", Ears.self) ?? .both
        }
        return layer
    }

    private func source(_ o: JSONObjectReader) throws(ShadesError) -> Sound.Source {
        let name = try o.string("source", required: true)!
        guard let keys = Sound.sourceKeys[name] else {
            throw reader.error(o["source"]?.location, "unknown source '\(name)'" + suggestion(for: name, among: Sound.sourceNames, noun: "sources"))
        }
        for key in Sound.allSourceKeys where o[key] != nil && !keys.contains(key) {
            throw reader.error(o.location(of: key), "key '\(key)' does not apply to source '\(name)'")
        }
        func frequency(_ why: String) throws(ShadesError) -> Double {
            guard let f = try o.number("frequency", form: .hertz) else { throw o.missing("frequency", because: why) }
            return f
        }
        let distribution = try o.choice("distribution", WhiteDistribution.self) ?? .gaussian
        switch name {
        case "noise":
            guard let beta = try o.number("beta") else {
                throw o.missing("beta", because: "source 'noise' needs a spectral exponent beta, -2 … 2")
            }
            do throws(ShadesError) { return .generator(.noise(colour: try NoiseColour(beta: beta), distribution: distribution)) } catch {
                throw reader.error(o.location(of: "beta"), "\(error)")
            }
        case "grey":
            return .generator(.grey)
        case "tone":
            return .generator(.tone(frequencyHz: try frequency("source 'tone' needs a frequency")))
        case "nbn":
            return .generator(.narrowBandNoise(centreHz: try frequency("source 'nbn' needs a centre frequency"),
                                               widthOctaves: try o.number("width") ?? 0.5))
        case "cr":
            let defaults = CoordinatedResetPattern(tinnitusFrequencyHz: 1)
            return .generator(.coordinatedReset(CoordinatedResetPattern(
                tinnitusFrequencyHz: try frequency("source 'cr' needs the tinnitus frequency"),
                toneSet: try o.choice("toneSet", CoordinatedResetPattern.ToneSet.self) ?? defaults.toneSet,
                toneSeconds: try o.number("toneSeconds"), rampSeconds: try o.number("rampSeconds") ?? defaults.rampSeconds,
                cycleRateHz: try o.number("cycleRateHz", form: .hertz) ?? defaults.cycleRateHz,
                onCycles: try o.integer("onCycles") ?? defaults.onCycles, offCycles: try o.integer("offCycles") ?? defaults.offCycles,
                toneGainsDB: try o.numbers("toneGainsDB"))))
        case "ripple":
            return .generator(.spectralRipple(SpectralRipple(
                tinnitusFrequencyHz: try frequency("source 'ripple' needs the tinnitus frequency"),
                condition: try o.choice("condition", SpectralRipple.Condition.self) ?? .amplitude,
                sham: try o.bool("sham") ?? false, bandGainsDB: try o.numbers("bandGainsDB"))))
        case "binaural":
            guard let carrier = try o.number("carrier", form: .hertz) else {
                throw o.missing("carrier", because: "source 'binaural' needs the carrier frequency (the left ear's tone)")
            }
            return .generator(.binauralBeat(carrierHz: carrier, beatHz: try o.number("beat", form: .hertz) ?? Parameter.beat.defaultValue!))
        case "isochronic":
            return .generator(.isochronicTone(
                frequencyHz: try frequency("source 'isochronic' needs the tone's frequency"),
                rateHz: try o.number("beat", form: .hertz) ?? Parameter.beat.defaultValue!,
                duty: try o.number("duty") ?? Parameter.duty.defaultValue!,
                rampSeconds: try o.number("rampSeconds") ?? Parameter.isochronicRamp.defaultValue!))
        case "velvet":
            return .generator(.velvetNoise(densityHz: try o.number("density", form: .hertz) ?? Parameter.density.defaultValue!))
        case "fractal":
            let defaults = FractalTones()
            return .generator(.fractalTones(FractalTones(
                scale: try o.choice("scale", FractalTones.Scale.self) ?? defaults.scale,
                lowHz: try o.number("low", form: .hertz) ?? defaults.lowHz, highHz: try o.number("high", form: .hertz) ?? defaults.highHz,
                tempoBPM: try o.number("tempoBPM") ?? defaults.tempoBPM)))
        case "file":
            let path = try o.string("path", required: true)!
            guard !path.isEmpty else { throw reader.error(o["path"]?.location, "'path' is empty (allowed: a sound file's path)") }
            return .file(SoundFileReference(path: path, bytes: try o.integer("bytes"), frames: try o.integer("frames"),
                                            sampleRate: try o.number("sampleRate", form: .hertz)))
        default:
            let colour = NoiseColour.named.first { $0.name == name }!.colour
            if o["distribution"] != nil && colour != .white {
                throw reader.error(o.location(of: "distribution"), "key 'distribution' does not apply to source '\(name)'")
            }
            return .generator(.noise(colour: colour, distribution: distribution))
        }
    }

    private func modifiers(_ o: JSONObjectReader, into sound: inout Sound) throws(ShadesError) {
        if let value = o["am"] {
            let a = try reader.object(value, path: o.path(of: "am"), what: "am", keys: ["rateHz", "depth", "startPhase", "keep"])
            sound.modulation = Modulation(rateHz: try a.number("rateHz", form: .hertz) ?? 10, depth: try a.number("depth") ?? 1,
                                          startPhase: try a.number("startPhase") ?? 0,
                                          keep: try a.choice("keep", AmplitudeModulationLevel.self) ?? .rms)
        }
        if let value = o["notch"] {
            guard case .array(let items) = value.kind else {
                throw reader.error(value.location, "'notch' must be an array of notches, not \(value.kind.name)")
            }
            var notches: [NotchSpec] = []
            for (index, item) in items.enumerated() {
                let n = try reader.object(item, path: o.path(of: "notch") + "[\(index)]", what: "a notch",
                                          keys: ["centreHz", "widthOctaves", "edgeBoostDB", "edgeWidthOctaves", "ears"])
                guard let centre = try n.number("centreHz", form: .hertz) else { throw n.missing("centreHz") }
                notches.append(NotchSpec(centreHz: centre, widthOctaves: try n.number("widthOctaves") ?? 1,
                                         edgeBoostDB: try n.number("edgeBoostDB") ?? 0,
                                         edgeWidthOctaves: try n.number("edgeWidthOctaves") ?? 0.375,
                                         ears: try n.choice("ears", Ears.self) ?? .both))
            }
            sound.notches = notches
        }
        if let value = o["shape"] {
            let s = try reader.object(value, path: o.path(of: "shape"), what: "shape", keys: ["frequenciesHz", "gainsDB", "rule"])
            guard let frequencies = try s.numbers("frequenciesHz") else { throw s.missing("frequenciesHz") }
            guard let gains = try s.numbers("gainsDB") else { throw s.missing("gainsDB") }
            sound.shape = SpectralShape(frequenciesHz: frequencies, gainsDB: gains, rule: try s.string("rule"))
        }
        if let value = o["pulses"] {
            let p = try reader.object(value, path: o.path(of: "pulses"), what: "pulses", keys: ["onSeconds", "offSeconds", "rampSeconds", "count"])
            let defaults = Pulses()
            sound.pulses = Pulses(onSeconds: try p.number("onSeconds") ?? defaults.onSeconds,
                                  offSeconds: try p.number("offSeconds") ?? defaults.offSeconds,
                                  rampSeconds: try p.number("rampSeconds") ?? defaults.rampSeconds, count: try p.integer("count"))
        }
        if let value = o["fades"] {
            let f = try reader.object(value, path: o.path(of: "fades"), what: "fades", keys: ["inSeconds", "outSeconds", "endSeconds"])
            sound.fades = Fades(inSeconds: try f.number("inSeconds") ?? 0, outSeconds: try f.number("outSeconds") ?? 0,
                                endSeconds: try f.number("endSeconds"))
        }
        if let value = o["swell"] {
            let s = try reader.object(value, path: o.path(of: "swell"), what: "swell", keys: ["periodSeconds", "depth"])
            guard let period = try s.number("periodSeconds") else { throw s.missing("periodSeconds") }
            sound.swell = Swell(periodSeconds: period, depth: try s.number("depth") ?? 0.5)
        }
        sound.channels = try o.choice("channels", ChannelLayout.self)
        sound.seed = try o.unsigned("seed")
    }
}

// MARK: - Codable: the same JSON

extension Sound: Codable {
    /// Reads the JSON form through ``SoundReader`` (errors carry no position: a decoder has none).
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

    fileprivate func encodeFields(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        switch source {
        case .generator(let generator):
            try generator.encodeFields(into: &c)
        case .file(let file):
            try c.encode("file", forKey: "source")
            try c.encode(file.path, forKey: "path")
            try c.encodeIfPresent(file.bytes, forKey: "bytes")
            try c.encodeIfPresent(file.frames, forKey: "frames")
            try c.encodeIfPresent(file.sampleRate, forKey: "sampleRate")
        case .mix(let layers):
            var list = c.nestedUnkeyedContainer(forKey: "layers")
            for layer in layers {
                var l = list.nestedContainer(keyedBy: JSONKey.self)
                try layer.sound.encodeFields(into: &l)
                if layer.gainDB != 0 { try l.encode(layer.gainDB, forKey: "gainDB") }
                if layer.ears != .both { try l.encode(layer.ears, forKey: "ears") }
            }
        }
        try c.encodeIfPresent(notches, forKey: "notch")
        try c.encodeIfPresent(shape, forKey: "shape")
        try c.encodeIfPresent(modulation, forKey: "am")
        try c.encodeIfPresent(pulses, forKey: "pulses")
        try c.encodeIfPresent(fades, forKey: "fades")
        try c.encodeIfPresent(swell, forKey: "swell")
        try c.encodeIfPresent(channels, forKey: "channels")
        try c.encodeIfPresent(seed, forKey: "seed")
    }
}

extension Generator {
    /// The generator's keys of the JSON form.
    fileprivate func encodeFields(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        switch self {
        case .noise(let colour, let distribution):
            if let name = NoiseColour.named.first(where: { $0.colour == colour })?.name {
                try c.encode(name, forKey: "source")
            } else {
                try c.encode("noise", forKey: "source")
                try c.encode(colour.beta, forKey: "beta")
            }
            if distribution != .gaussian { try c.encode(distribution, forKey: "distribution") }
        case .grey:
            try c.encode("grey", forKey: "source")
        case .tone(let frequencyHz):
            try c.encode("tone", forKey: "source")
            try c.encode(frequencyHz, forKey: "frequency")
        case .narrowBandNoise(let centreHz, let widthOctaves):
            try c.encode("nbn", forKey: "source")
            try c.encode(centreHz, forKey: "frequency")
            try c.encode(widthOctaves, forKey: "width")
        case .coordinatedReset(let p):
            try c.encode("cr", forKey: "source")
            try c.encode(p.tinnitusFrequencyHz, forKey: "frequency")
            try c.encode(p.toneSet, forKey: "toneSet")
            try c.encodeIfPresent(p.toneSeconds, forKey: "toneSeconds")
            try c.encode(p.rampSeconds, forKey: "rampSeconds")
            try c.encode(p.cycleRateHz, forKey: "cycleRateHz")
            try c.encode(p.onCycles, forKey: "onCycles")
            try c.encode(p.offCycles, forKey: "offCycles")
            try c.encodeIfPresent(p.toneGainsDB, forKey: "toneGainsDB")
        case .binauralBeat(let carrierHz, let beatHz):
            try c.encode("binaural", forKey: "source")
            try c.encode(carrierHz, forKey: "carrier")
            try c.encode(beatHz, forKey: "beat")
        case .isochronicTone(let frequencyHz, let rateHz, let duty, let rampSeconds):
            try c.encode("isochronic", forKey: "source")
            try c.encode(frequencyHz, forKey: "frequency")
            try c.encode(rateHz, forKey: "beat")
            try c.encode(duty, forKey: "duty")
            try c.encode(rampSeconds, forKey: "rampSeconds")
        case .velvetNoise(let densityHz):
            try c.encode("velvet", forKey: "source")
            try c.encode(densityHz, forKey: "density")
        case .fractalTones:
            let t = fractal!
            try c.encode("fractal", forKey: "source")
            try c.encode(t.scale, forKey: "scale")
            try c.encode(t.lowHz, forKey: "low")
            try c.encode(t.highHz, forKey: "high")
            try c.encode(t.tempoBPM, forKey: "tempoBPM")
        case .spectralRipple(let r):
            try c.encode("ripple", forKey: "source")
            try c.encode(r.tinnitusFrequencyHz, forKey: "frequency")
            try c.encode(r.condition, forKey: "condition")
            if r.sham { try c.encode(true, forKey: "sham") }
            try c.encodeIfPresent(r.bandGainsDB, forKey: "bandGainsDB")
        }
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

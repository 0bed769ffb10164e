import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesCatalogue
import ShadesTestSupport

/// Reading and checking catalogue files: the default catalogue, and every bad input as one located line.
@Suite struct PresetParserTests {
    static let presetsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path

    /// A catalogue with one category "c" whose only sound is `sound` (on line 5) and optional `defaults`.
    func catalogue(_ sound: String, defaults: String? = nil) -> String {
        """
        {\(defaults.map { " \"defaults\": \($0)," } ?? "")
          "categories": [
            { "id": "c", "titles": { "en": "C", "de": "C" },
              "sounds": [
                \(sound)
              ] }
          ]
        }
        """
    }

    func parse(_ text: String, file: String = "Presets/t.json") throws(ShadesError) -> CatalogueDocument {
        try PresetParser.parse(data: Data(text.utf8), file: file)
    }

    /// The reading error for `text`, or nil.
    func readingError(_ text: String) -> ShadesError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    /// The validation errors for documents, or [] when valid (a reading error fails the test).
    func validationErrors(_ texts: [(file: String, text: String)]) -> [ShadesError] {
        do {
            let documents = try texts.map { (file: $0.file, document: try parse($0.text, file: $0.file)) }
            try PresetParser.validate(documents)
            return []
        } catch let error as PresetErrors {
            return error.errors
        } catch {
            Issue.record("unexpected reading error: \(error)")
            return []
        }
    }

    func validationErrors(_ text: String) -> [ShadesError] { validationErrors([("Presets/t.json", text)]) }

    // MARK: The default catalogue

    @Test func defaultCatalogueReadsAndValidates() throws {
        let documents = try PresetParser.loadCatalogue(folder: Self.presetsFolder)
        #expect(documents.map(\.file) == [Self.presetsFolder + "/default.json"])
        let document = try #require(documents.first?.document)
        #expect(document.defaults == CatalogueDefaults(loudnessLUFS: -23, rate: 48_000, format: "wav", sampleFormat: "s16",
                                                       lengthSeconds: 60))
        #expect(document.categories.map(\.id) == ["noise", "modulated", "nature", "fractal-tones", "beats", "per-ear"])
        let ids = document.sounds.map(\.sound.id)
        #expect(ids == ["white", "pink", "brown", "blue", "violet", "grey", "velvet", "white-am10", "pink-am10", "brown-am10",
                        "rain", "waterfall", "ocean-surf", "wind", "surf", "wavy-brown", "fractal-pentatonic", "fractal-major", "fractal-minor-pentatonic",
                        "binaural-10hz", "binaural-10hz-pink", "isochronic-10hz", "tone-left-pink-right"])
        #expect(document.sounds.allSatisfy { $0.sound.loop && $0.sound.titles["en"] != nil && $0.sound.titles["de"] != nil })
        let pink = try #require(document.sounds.first { $0.sound.id == "pink" }?.sound)
        #expect(pink.sound == Sound(.noise(colour: .pink, distribution: .gaussian)))
        #expect(pink.titles == ["en": "Pink noise", "de": "Rosa Rauschen"])
        #expect(pink.fileName(defaults: document.defaults) == "pink.wav")
        for id in ["white-am10", "pink-am10", "brown-am10"] {
            let sound = try #require(document.sounds.first { $0.sound.id == id }?.sound)
            #expect(sound.sound.modulation == Modulation(rateHz: 10, depth: 1))
        }
        let rain = try #require(document.sounds.first { $0.sound.id == "rain" }?.sound)
        #expect(rain.sound.layers?[2].sound.generator == .narrowBandNoise(centreHz: 5000, widthOctaves: 2))  // "5kHz"
        #expect(document.sounds.filter { $0.category.id == "nature" }.allSatisfy { (1...3).contains($0.sound.sound.layers?.count ?? 0) })
    }

    /// The personalised category is the template Presets/personal/category.json made for the frequency: the
    /// exact frequency in Hz in every sound, written as "6.35 kHz" in the titles, and the presets folder's own
    /// loader never reads it (it is in a folder of its own).
    @Test func personalisedCategoryIsItsTemplateMadeForTheFrequency() throws {
        let f = 6349.60420787
        let category = try PresetAssets.personalCategory(frequencyHz: f)
        #expect(category.id == "personal" && category.titles == ["en": "For your tinnitus (6.35 kHz)", "de": "Für Ihren Tinnitus (6.35 kHz)"])
        let tone = Sound(.tone(frequencyHz: f)), band = Sound(.narrowBandNoise(centreHz: f, widthOctaves: 0.5))
        let expected: [(String, String, String, Sound)] = [
            ("tone", "Tone at 6.35 kHz", "Ton bei 6.35 kHz", tone),
            ("tone-am10", "Tone at 6.35 kHz, 10 Hz modulated", "Ton bei 6.35 kHz, 10 Hz moduliert", tone.modulated(rateHz: 10)),
            ("tone-am40", "Tone at 6.35 kHz, 40 Hz modulated", "Ton bei 6.35 kHz, 40 Hz moduliert", tone.modulated(rateHz: 40)),
            ("nbn", "Narrow-band noise at 6.35 kHz", "Schmalbandrauschen bei 6.35 kHz", band),
            ("nbn-am10", "Narrow-band noise at 6.35 kHz, 10 Hz modulated", "Schmalbandrauschen bei 6.35 kHz, 10 Hz moduliert",
             band.modulated(rateHz: 10)),
            ("white-notched", "White noise without 6.35 kHz", "Weißes Rauschen ohne 6.35 kHz",
             Sound(.noise(colour: .white, distribution: .gaussian)).notched(at: f)),
            ("pink-notched", "Pink noise without 6.35 kHz", "Rosa Rauschen ohne 6.35 kHz",
             Sound(.noise(colour: .pink, distribution: .gaussian)).notched(at: f)),
        ]
        #expect(category.sounds.map(\.id) == expected.map(\.0))
        for (sound, (id, en, de, made)) in zip(category.sounds, expected) {
            #expect(sound.titles == ["en": en, "de": de] && sound.sound == made && sound.loop, "\(id)")
            #expect(sound.lengthSeconds == nil && sound.rate == nil && sound.format == nil && sound.loudnessLUFS == nil, "\(id)")
        }
        #expect(try PresetAssets.personalCategory(frequencyHz: 440).titles["en"] == "For your tinnitus (440 Hz)")
        #expect(try PresetParser.loadCatalogue(folder: Self.presetsFolder).map(\.file) == [Self.presetsFolder + "/default.json"])
    }

    @Test func modelRoundTripsThroughCodable() throws {
        let document = try #require(try PresetParser.load(folder: Self.presetsFolder).first?.document)
        let decoded = try JSONDecoder().decode(CatalogueDocument.self, from: JSONEncoder().encode(document))
        #expect(decoded == document)
    }

    @Test func overridesAndDefaultsResolve() throws {
        let document = try parse(catalogue("""
            { "id": "s", "titles": { "en": "S", "de": "S" }, "lengthSeconds": 30, "loop": false, "rate": "96kHz",
              "format": "flac", "sampleFormat": "s24", "loudnessLUFS": -30,
              "sound": { "channels": "diotic", "seed": 18446744073709551615, "fades": { "inSeconds": 1, "outSeconds": 2 },
                          "layers": [ { "source": "tone", "frequency": "30kHz", "gainDB": -3 } ] } }
            """))
        let sound = document.categories[0].sounds[0]
        #expect(sound.settings(defaults: document.defaults)
                == CatalogueDefaults(loudnessLUFS: -30, rate: 96_000, format: "flac", sampleFormat: "s24", lengthSeconds: 30))
        #expect(sound.sound == Sound(.mix([Layer(Sound(.tone(frequencyHz: 30_000)), gainDB: -3)]), fades: Fades(inSeconds: 1, outSeconds: 2),
                                     channels: .diotic, seed: .max))
        #expect(!sound.loop)
        #expect(sound.fileName(defaults: document.defaults) == "s.flac")
        try PresetParser.validate([("t.json", document)])  // 30 kHz is fine at 96 kHz
    }

    // MARK: Reading errors: file, line and column

    @Test func missingCommaNamesLineAndColumn() {
        let text = """
            {
              "categories": [
                { "id": "a" "titles": {} }
              ]
            }
            """
        #expect(readingError(text)?.description == #"Presets/t.json:3:17: unexpected '"' (expected ',' or '}'; missing comma?)"#)
    }

    @Test func trailingCommaNamesLineAndColumn() {
        #expect(readingError(#"{"categories": [],}"#)?.description == "Presets/t.json:1:19: trailing comma before '}'")
        #expect(readingError("{\n  \"categories\": [\n    1,\n  ]\n}")?.description == "Presets/t.json:4:3: trailing comma before ']'")
    }

    @Test func otherSyntaxErrorsAreLocated() {
        #expect(readingError("")?.description == "Presets/t.json:1:1: the file is empty (expected a JSON object)")
        #expect(readingError("{\"categories\": [}")?.description == "Presets/t.json:1:17: unexpected '}' (expected a value)")
        #expect(readingError("{\"a\": \"Wö\nrd\"}")?.line == 1)  // line break inside a string
        #expect(readingError("{\"ä\": 01}")?.description == "Presets/t.json:1:7: invalid number '01'")  // ä is one column
        #expect(readingError("{} x")?.description == "Presets/t.json:1:4: unexpected 'x' after the end of the JSON value")
    }

    @Test func unknownKeySuggestsTheNearest() {
        let text = catalogue(#"{ "id": "s", "titel": { "en": "S", "de": "S" }, "sound": { "layers": [ { "source": "pink" } ] } }"#)
        #expect(readingError(text)?.description == "Presets/t.json:5:22: unknown key 'titel' (did you mean 'titles'?)")
        let far = catalogue(#"{ "id": "s", "colour": "pink" }"#)
        #expect(readingError(far)?.message == "unknown key 'colour' (allowed keys: id, titles, sound, lengthSeconds, loop, "
                + "loudnessLUFS, rate, format, sampleFormat)")
        #expect(readingError(#"{ "categorys": [] }"#)?.message == "unknown key 'categorys' (did you mean 'categories'?)")
    }

    @Test func unknownSourceSuggestsTheNearest() {
        let text = catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "sound": { "layers": [ { "source": "pinkk" } ] } }"#)
        #expect(readingError(text)?.description == "Presets/t.json:5:93: unknown source 'pinkk' (did you mean 'pink'?)")
        let far = catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "sound": { "layers": [ { "source": "thunderstorm" } ] } }"#)
        #expect(readingError(far)?.message == "unknown source 'thunderstorm' (allowed sources: white, pink, brown, blue, violet, "
                + "noise, grey, speech-noise, high-tone-noise, velvet, tone, nbn, binaural, isochronic, fractal, cr, ripple, "
                + "tinnitus-tone, tinnitus-hiss, tinnitus-pulse, tinnitus-roar, tinnitus-cricket, binned-noise, file)")
    }

    @Test func wrongTypesAndMissingKeysAreReadingErrors() {
        func layers(_ layers: String) -> String {
            catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "sound": { "layers": [ \#(layers) ] } }"#)
        }
        #expect(readingError(catalogue(#"{ "id": "s", "sound": { "layers": [] } }"#))?.description
                == "Presets/t.json:5:9: missing key 'titles' in a sound")
        #expect(readingError(layers(#"{ "source": "noise" }"#))?.message
                == "missing key 'beta' in a layer (source 'noise' needs a spectral exponent beta, -2 … 2)")
        #expect(readingError(layers(#"{ "source": "noise", "beta": 3 }"#))?.message == "beta 3 is out of range (allowed: -2 … 2)")
        #expect(readingError(layers(#"{ "source": "pink", "frequency": 440 }"#))?.message == "key 'frequency' does not apply to source 'pink'")
        #expect(readingError(layers(#"{ "source": "tone", "frequency": "loud" }"#))?.message
                == "frequency 'loud': not a frequency (allowed: above 0 Hz; e.g. 6kHz, 6000)")
        #expect(readingError(layers(#"{ "source": "pink", "gainDB": "-3" }"#))?.message == "'gainDB' must be a number, not a string")
        #expect(readingError(layers(#"{ "source": "pink", "am": { "keep": "peek" } }"#))?.message
                == "unknown keep 'peek' (did you mean 'peak'?)")
        #expect(readingError(catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "loop": "yes", "sound": { "source": "pink" } }"#))?
                .message == "'loop' must be true or false, not a string")
        #expect(readingError(#"{ "categories": [], "categories": [] }"#)?.message == "duplicate key 'categories'")
    }

    // MARK: Validation errors: every problem, one line each

    func sound(_ id: String, en: String = "S", de: String? = "S", extra: String = "", layer: String = #"{ "source": "pink" }"#) -> String {
        let titles = de.map { #"{ "en": "\#(en)", "de": "\#($0)" }"# } ?? #"{ "en": "\#(en)" }"#
        return #"{ "id": "\#(id)", "titles": \#(titles),\#(extra) "sound": \#(layer) }"#
    }

    @Test func duplicateIDsInOneFile() {
        let errors = validationErrors(catalogue(sound("rain") + ",\n" + sound("rain")))
        #expect(errors.map(\.description) == ["Presets/t.json:6:3: duplicate sound id 'rain' (first used at Presets/t.json:5)"])
    }

    @Test func duplicateIDsAcrossTwoFiles() throws {
        let errors = validationErrors([("Presets/a.json", catalogue(sound("rain"))), ("Presets/b.json", catalogue(sound("rain")))])
        #expect(errors.map(\.description) == [
            "Presets/b.json:3:7: duplicate category id 'c' (first used at Presets/a.json:3)",
            "Presets/b.json:5:11: duplicate sound id 'rain' (first used at Presets/a.json:5)",
        ])
        // The same through the folder reader.
        let folder = temporaryFolder("presets")
        try catalogue(sound("rain")).write(toFile: folder + "/a.json", atomically: true, encoding: .utf8)
        try catalogue(sound("rain")).replacingOccurrences(of: #""id": "c""#, with: #""id": "d""#)
            .write(toFile: folder + "/b.json", atomically: true, encoding: .utf8)
        #expect(throws: PresetErrors([ShadesError(path: folder + "/b.json", line: 5, column: 11,
                                                  message: "duplicate sound id 'rain' (first used at \(folder)/a.json:5)")])) {
            try PresetParser.loadCatalogue(folder: folder)
        }
    }

    @Test(arguments: ["../x", "/etc/passwd", "a/b", "..", "sub\\dir"])
    func escapingIDsAreRefused(id: String) {
        let escaped = id.replacingOccurrences(of: "\\", with: "\\\\")
        let errors = validationErrors(catalogue(sound(escaped)))
        #expect(errors.map(\.description)
                == ["Presets/t.json:5:11: sound id '\(id)' would escape the output folder (allowed: a-z, 0-9, '-', '_')"])
    }

    @Test(arguments: ["", "Pink", "pink noise"])
    func otherBadIDsAreRefused(id: String) {
        #expect(validationErrors(catalogue(sound(id))).map(\.message)
                == ["sound id '\(id)' is not allowed (allowed: 1 … 64 of a-z, 0-9, '-', '_')"])
    }

    @Test func aTooLongIDIsShownCut() {
        #expect(validationErrors(catalogue(sound(String(repeating: "a", count: 65)))).map(\.message)
                == ["sound id '\(String(repeating: "a", count: 40))…' has 65 characters (allowed: 1 … 64 of a-z, 0-9, '-', '_')"])
    }

    @Test func missingTitlesAreRefused() {
        #expect(validationErrors(catalogue(sound("s", de: nil))).map(\.description)
                == ["Presets/t.json:5:22: sound 's' is missing its 'de' title (titles need at least 'en' and 'de')"])
        #expect(validationErrors(catalogue(sound("s", en: " "))).map(\.message)
                == ["sound 's' is missing its 'en' title (titles need at least 'en' and 'de')"])
    }

    @Test func frequencyAtOrAboveNyquistIsRefusedAtTheSoundsRate() {
        let tone = #"{ "source": "tone", "frequency": "30kHz" }"#
        #expect(validationErrors(catalogue(sound("s", layer: tone))).map(\.description) == [
            "Presets/t.json:5:87: sound 's': frequency 30000 Hz is out of range (allowed: above 0 and below 24000 Hz (Nyquist))",
        ])
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "tone", "frequency": 24000 }"#))).count == 1)
        #expect(validationErrors(catalogue(sound("s", extra: #" "rate": 96000,"#, layer: tone))).isEmpty)
        #expect(validationErrors(catalogue(sound("s", layer: tone), defaults: #"{ "rate": 96000 }"#)).isEmpty)
        // A band whose upper edge passes Nyquist, and a notch above what the rate carries.
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "nbn", "frequency": 20000, "width": 1 }"#)))
                .first?.message.hasPrefix("sound 's': frequency 20000 Hz is out of range (allowed: above 0 and below 16970.6 Hz, for a band 1 octave wide") == true)
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "pink", "notch": [ { "centreHz": 22000 } ] }"#)))
                .first?.message.hasPrefix("sound 's': notch.centreHz 22000 Hz is out of range") == true)
    }

    /// The generative sounds' values are named by their JSON keys (issue 24).
    @Test func generativeSoundValuesAreNamedByTheirKeys() {
        let cases = [
            (#"{ "source": "binaural", "carrier": 200, "beat": 0 }"#, "sound 's': beat 0 Hz is out of range (allowed: 0.1 … 100 Hz)"),
            (#"{ "source": "isochronic", "frequency": 200, "duty": 1.5 }"#, "sound 's': duty 1.5 is out of range (allowed: above 0 and below 1)"),
            (#"{ "source": "isochronic", "frequency": 200, "rampSeconds": 0.2 }"#,
             "sound 's': rampSeconds 200 ms is out of range (allowed: 0 … 50 ms, the shorter of the on and off times at this beat and duty)"),
            (#"{ "source": "velvet", "density": 0.5 }"#, "sound 's': density 0.5 Hz is out of range (allowed: 1 … 24000 Hz (half the sample rate))"),
            (#"{ "source": "fractal", "tempoBPM": 500 }"#, "sound 's': tempoBPM 500 BPM is out of range (allowed: 20 … 240 BPM)"),
            (#"{ "source": "fractal", "low": 5 }"#, "sound 's': low 5 Hz is out of range (allowed: from 20 to below 24000 Hz (Nyquist))"),
            (#"{ "layers": [ { "source": "binaural", "carrier": 200, "ears": "left" } ] }"#,
             "sound 's' layer 1: channels left cannot carry binaural beats (allowed: stereo (one tone per ear))"),
        ]
        for (layer, message) in cases {
            #expect(validationErrors(catalogue(sound("s", layer: layer))).map(\.message) == [message])
        }
        #expect(readingError(catalogue(sound("s", layer: #"{ "source": "fractal", "scale": "blues" }"#)))?.message.contains("scale") == true)
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "fractal", "scale": "dorian", "low": "220Hz", "high": "880Hz" }"#))).isEmpty)
    }

    @Test func badValuesAreRefused() {
        #expect(validationErrors(catalogue(sound("s", extra: #" "lengthSeconds": -5,"#))).map(\.description)
                == ["Presets/t.json:5:58: sound 's': lengthSeconds -5.0 is out of range (allowed: above 0 s, up to 86400 s)"])
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "pink", "am": { "depth": 2 } }"#))).map(\.description)
                == ["Presets/t.json:5:95: sound 's': am.depth 2 is out of range (allowed: 0 … 1)"])
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "pink", "swell": { "periodSeconds": 1, "depth": 0.5 } }"#)))
                .map(\.message) == ["sound 's': swell.periodSeconds 1 s is out of range (allowed: 2 … 60 s)"])
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "source": "pink", "swell": { "periodSeconds": 10, "depth": 1.5 } }"#)))
                .map(\.message) == ["sound 's': swell.depth 1.5 is out of range (allowed: 0 … 1)"])
        #expect(validationErrors(catalogue(sound("s", extra: #" "format": "flac", "sampleFormat": "f32","#))).map(\.message)
                == ["sound 's': sampleFormat 'f32' cannot be written as flac (allowed: s16, s24; or format wav)"])
        #expect(validationErrors(catalogue(sound("s"), defaults: #"{ "loudnessLUFS": 3, "rate": 4000 }"#)).map(\.message) == [
            "defaults: loudnessLUFS 3.0 is out of range (allowed: -70 … 0 LUFS)",
            "defaults: rate 4000 Hz is out of range (allowed: 8000 … 192000 Hz)",
            "sound 's': loudnessLUFS 3.0 is out of range (allowed: -70 … 0 LUFS)",
            "sound 's': rate 4000 Hz is out of range (allowed: 8000 … 192000 Hz)",
        ])
        #expect(readingError(catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "sound": { "layers": [] } }"#))?
                .message == "'layers' is empty (allowed: one or more layers)")
        #expect(validationErrors(catalogue(sound("s", layer: #"{ "layers": [ { "source": "pink" }, { "source": "pink", "gainDB": 6 } ] }"#)))
                .map(\.message) == ["sound 's' layer 2: gainDB 6 dB is out of range (allowed: -60 … 0 dB)"])
        // The library's own rule: fades make no sense on a loop.
        #expect(validationErrors(catalogue(#"{ "id": "s", "titles": { "en": "S", "de": "S" }, "sound": { "fades": { "inSeconds": 1 }, "#
                                           + #""layers": [ { "source": "pink" } ] } }"#))
                .first?.message.hasPrefix("sound 's': fades 1000ms/0ms cannot be combined with loop") == true)
    }

    @Test func everyProblemIsReportedOnItsOwnLine() {
        let text = catalogue([sound("../up"), sound("b", de: nil), sound("b", layer: #"{ "source": "tone", "frequency": 30000 }"#)]
            .joined(separator: ",\n"))
        let errors = validationErrors(text)
        #expect(errors.count == 4)
        #expect(errors.allSatisfy { !$0.description.contains("\n") && $0.line != nil && $0.column != nil })
        #expect(PresetErrors(errors).description.split(separator: "\n").count == 4)
    }

    @Test func nearestNameNeedsAtMostThreeEdits() {
        #expect(readingError(catalogue(sound("s", layer: #"{ "source": "bruwn" }"#)))?.message == "unknown source 'bruwn' (did you mean 'brown'?)")
        #expect(readingError(catalogue(sound("s", layer: #"{ "layers": [ { "source": "pink", "gain": 1 } ] }"#)))?.message
                == "unknown key 'gain' (did you mean 'gainDB'?)")
    }
}

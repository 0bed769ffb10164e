import Testing
import Foundation
import ShadesDSP
import ShadesRender

/// The JSON of a ``Sound``: one schema for presets, `--sound` files and the manifest.
@Suite struct SoundJSONTests {
    static let sounds: [Sound] = [
        Sound(.noise(colour: .pink, distribution: .gaussian)),
        Sound(.noise(colour: try! NoiseColour(beta: 0.5), distribution: .gaussian)),
        Sound(.noise(colour: .white, distribution: .uniform)),
        Sound(.grey),
        Sound(.tone(frequencyHz: 6_000)).modulated(rateHz: 40, depth: 0.5),
        Sound(.generator(.narrowBandNoise(centreHz: 4_000, widthOctaves: 0.5)), notches: [NotchSpec(centreHz: 4_000, widthOctaves: 0.25, ears: .left)],
              pulses: Pulses(onSeconds: 0.2, offSeconds: 0.3, rampSeconds: 0.02, count: 4)),
        Sound(.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, toneSet: .logSpaced, toneSeconds: 0.1,
                                                        toneGainsDB: [0, -2, -3, 1]))),
        Sound(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000, condition: .phase, sham: true))),
        Sound(.file(SoundFileReference(path: "music/song.mp3", bytes: 12, frames: 44_100, sampleRate: 44_100)))
            .notched(at: 6_000),
        Sound.mix([Layer(Sound(.generator(.noise(colour: .brown, distribution: .gaussian)), swell: Swell(periodSeconds: 10, depth: 0.8))),
                   Layer(Sound(.generator(.tone(frequencyHz: 1_000)), channels: .diotic), gainDB: -6, ears: .left)],
                  channels: .stereo, seed: 31),
    ]

    @Test(arguments: sounds)
    func everySoundRoundTripsThroughItsJSON(sound: Sound) throws {
        let data = try JSONEncoder().encode(sound)
        #expect(try JSONDecoder().decode(Sound.self, from: data) == sound)
        #expect(try Sound.parse(json: Array(data), file: "s.json") == sound)
    }

    /// A notch's keys other than `centreHz` have their defaults: 1 octave, no boost, 3/8-octave boost bands
    /// when a boost is given, both ears.
    @Test func notchesReadWithTheirDefaults() throws {
        let text = #"{ "source": "white", "notch": [ { "centreHz": 6000 }, { "centreHz": "4kHz", "widthOctaves": 0.5, "edgeBoostDB": 20 } ] }"#
        let notches = try #require(try Sound.parse(json: Array(text.utf8), file: "n.json").notches)
        #expect(notches == [NotchSpec(centreHz: 6_000), NotchSpec(centreHz: 4_000, widthOctaves: 0.5, edgeBoostDB: 20)])
        #expect(notches[0].widthOctaves == 1 && notches[0].edgeBoostDB == 0 && notches[0].ears == .both)
        #expect(notches[1].edgeWidthOctaves == 0.375)
    }

    @Test func thePresetFormsRead() throws {
        let text = #"{ "seed": 11, "layers": [ { "source": "noise", "beta": -0.5, "swell": { "periodSeconds": 12, "depth": 0.15 } },"#
            + #" { "source": "nbn", "frequency": "5kHz", "width": 2, "gainDB": -12, "am": { "rateHz": 13, "depth": 0.3 } } ] }"#
        let sound = try Sound.parse(json: Array(text.utf8), file: "rain.json")
        #expect(sound.seed == 11 && sound.layers?.count == 2)
        #expect(sound.layers?[1].sound.generator == .narrowBandNoise(centreHz: 5_000, widthOctaves: 2))
        #expect(sound.layers?[1].gainDB == -12 && sound.layers?[1].sound.modulation == Modulation(rateHz: 13, depth: 0.3))
    }

    @Test func badJSONIsOneLocatedLine() {
        func error(_ text: String) -> String? {
            do { _ = try Sound.parse(json: Array(text.utf8), file: "s.json"); return nil } catch { return error.description }
        }
        #expect(error(#"{ "source": "pinkk" }"#) == "s.json:1:13: unknown source 'pinkk' (did you mean 'pink'?)")
        #expect(error(#"{ "source": "tone" }"#) == "s.json:1:1: missing key 'frequency' in a sound (source 'tone' needs a frequency)")
        #expect(error(#"{ "source": "pink", "layers": [] }"#) == "s.json:1:21: a sound has 'source' or 'layers', not both")
        #expect(error(#"{ "layers": [] }"#) == "s.json:1:3: 'layers' is empty (allowed: one or more layers)")
        #expect(error(#"{ "source": "pink", "gainDB": -3 }"#) == "s.json:1:21: unknown key 'gainDB' (allowed keys: "
                + (["source", "layers"] + ["beta", "distribution", "corner", "slope", "density", "frequency", "width", "carrier", "beat", "duty",
                    "rampSeconds", "scale", "low", "high", "tempoBPM", "toneSet", "toneSeconds",
                    "cycleRateHz", "onCycles", "offCycles", "toneGainsDB", "condition", "bandGainsDB", "harmonics", "heartRateBPM",
                    "fluctuation", "fluctuationDepth", "chirpRate", "syllables", "syllableRate", "lowHz", "highHz", "binScale",
                    "binLevelsDB", "path", "bytes",
                    "frames", "sampleRate", "fm", "notch", "shape", "am", "randomAM", "surf", "pulses", "fades", "swell", "channels", "seed", "sham"]).joined(separator: ", ") + ")")
        #expect(error(#"{ "source": "brown", "distribution": "uniform" }"#)
                == "s.json:1:22: key 'distribution' does not apply to source 'brown'")
    }
}

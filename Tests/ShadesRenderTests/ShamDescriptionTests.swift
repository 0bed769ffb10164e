import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesTestSupport

/// The sham of a sound description (``Sound/shamTwin()``): declared by each part, asked for by `"sham": true`
/// in any sound object and by `--sham` on the command line. The files are measured in ShamTwinTests.
@Suite struct ShamDescriptionTests {
    let folder = temporaryFolder("sham-json")

    func parse(_ text: String) throws(ShadesError) -> Sound { try Sound.parse(json: Array(text.utf8), file: "s.json") }

    @Test func theTherapyPartsAreTheOnesThatDeclareAShamAndEachMovesItsFeature() throws {
        #expect(Generator.kinds.filter { $0.declaresSham }.flatMap { $0.names } == ["tone", "nbn", "cr", "ripple"])
        #expect(Sound.modifierKinds.filter { $0.declaresSham }.map { $0.key } == ["notch", "am"])
        // Every band moves by its width rounded up plus 1.5 octaves, down, or up when it would reach below 100 Hz.
        #expect(try Sound(.tone(frequencyHz: 6_000)).shamTwin().generator == .tone(frequencyHz: 6_000 / pow(2, 1.5)))
        #expect(try Sound(.tone(frequencyHz: 200)).shamTwin().generator == .tone(frequencyHz: 200 * pow(2, 1.5)))
        #expect(try Sound(.narrowBandNoise(centreHz: 8_000, widthOctaves: 1.5)).shamTwin().generator
                == .narrowBandNoise(centreHz: 8_000 / pow(2, 3.5), widthOctaves: 1.5))
        let notched = try Sound(.noise(colour: .pink)).notched(at: 4_000, widthOctaves: 0.5).shamTwin()
        #expect(notched.notches?.map(\.centreHz) == [4_000 / pow(2, 2.5)] && notched.notches?.map(\.widthOctaves) == [0.5])
        #expect(try Sound(.noise(colour: .pink)).modulated(rateHz: 10, depth: 0.7).shamTwin().modulation == Modulation(rateHz: 2, depth: 0.7))
        #expect(try Sound(.noise(colour: .pink)).modulated(rateHz: 1).shamTwin().modulation?.rateHz == 0.5)
        let cr = try Sound(.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4_000))).shamTwin().generator?.as(CoordinatedResetPattern.self)
        #expect(cr?.tinnitusFrequencyHz == 4_000 / pow(2, 2.5) && cr?.toneSet == .standard)
        #expect(try Sound(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000))).shamTwin()
                == Sound(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000, sham: true))))
    }

    @Test func shamTrueInJSONIsTheShamTwinOfTheRestOfTheObject() throws {
        let texts = [#"{ "source": "pink", "am": { "rateHz": 10 }, "sham": true }"#,
                     #"{ "source": "file", "path": "song.mp3", "notch": [ { "centreHz": 6000 } ], "sham": true }"#,
                     #"{ "source": "cr", "frequency": "6kHz", "sham": true }"#,
                     #"{ "source": "nbn", "frequency": 4000, "width": 0.5, "seed": 3, "channels": "mono", "sham": true }"#,
                     #"{ "layers": [ { "source": "pink" }, { "source": "tone", "frequency": 6000, "gainDB": -6, "sham": true } ] }"#]
        for text in texts {
            let active = try parse(text.replacingOccurrences(of: #""sham": true"#, with: #""sham": false"#))
            #expect(try parse(text) == active.shamTwin(), "\(text)")
        }
        // Ripple keeps its sham among its own keys: written and read as before.
        let ripple = try parse(#"{ "source": "ripple", "frequency": 4000, "condition": "phase", "sham": true }"#)
        #expect(ripple == Sound(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000, condition: .phase, sham: true))))
        #expect(ripple.compactJSON == #"{"condition":"phase","frequency":4000,"sham":true,"source":"ripple"}"#)
    }

    @Test func aShamOfNoTherapySoundIsRefusedAtItsKey() throws {
        do { _ = try parse(#"{ "source": "pink", "sham": true }"#); Issue.record("accepted") } catch {
            #expect(error.description.hasPrefix("s.json:1:21: sham of pink beta=1 does not exist: it is not a therapy sound (allowed: a therapy sound: tone, nbn, cr, ripple, or a sound with notch or am)"),
                    "\(error.description)")
        }
        do { _ = try parse(#"{ "source": "pink", "sham": 1 }"#); Issue.record("accepted") } catch {
            #expect(error.description.contains("'sham'"), "\(error.description)")
        }
    }

    @Test func renderShamMakesTheTwinOfAnySoundAndRefusesPlainNoise() throws {
        for (command, expected) in [("render pink --am 10 --sham --duration 4s -o am.wav", "am=2Hz"),
                                    ("render tone --frequency 6kHz --sham --duration 1s -o tone.wav", "frequency=2121.32034356Hz"),
                                    ("render cr --frequency 6kHz --sham --duration 2s -o cr.wav", "cr frequency=1060.66017178Hz")] {
            let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let name = command.split(separator: " ").last!
            #expect(try DecodedAudio(contentsOf: "\(folder)/\(name)").comment?.contains(expected) == true, "\(command)")
        }
        let refused = try Shell.run(["render", "pink", "--sham", "--duration", "1s", "-o", "pink.wav"], in: folder)
        #expect(refused.status == 2 && refused.stderr.contains("sham of pink beta=1 does not exist"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/pink.wav"))
    }
}

import Foundation
import Testing
import ShadesDSP
import ShadesRender
import ShadesStudy

/// Levels as a study writes them: every form reads, writes back the same, and a bad one is refused in one line
/// naming the level and the allowed forms; each kind of sound says which frequency its level re hearing uses.
@Suite struct PatientLevelTests {
    @Test(arguments: [
        ("-20 dBFS", PatientLevel.dBFS(-20), "-20 dBFS"), ("-23 LUFS", .lufs(-23), "-23 LUFS"), ("60 dB SPL", .dBSPL(60), "60 dB SPL"),
        ("60dBSPL", .dBSPL(60), "60 dB SPL"), ("40 dB HL", .dBHL(40), "40 dB HL"), ("20 dB SL", .dBSL(20), "20 dB SL"),
        ("20dB SL", .dBSL(20), "20 dB SL"), ("7.5 db sl", .dBSL(7.5), "7.5 dB SL"), ("MML+6", .reMML(6), "MML+6 dB"),
        ("MML + 6 dB", .reMML(6), "MML+6 dB"), ("mml-3dB", .reMML(-3), "MML-3 dB"), ("MML", .reMML(0), "MML+0 dB"),
    ])
    func formsRead(text: String, level: PatientLevel, written: String) throws {
        #expect(try PatientLevel(text) == level)
        #expect(level.description == written)
        #expect(try PatientLevel(written) == level)
    }

    @Test func jsonIsTheTextForm() throws {
        let levels: [PatientLevel] = [.dBSL(20), .reMML(6), .dBSPL(60)]
        let json = String(decoding: try JSONEncoder().encode(levels), as: UTF8.self)
        #expect(json == #"["20 dB SL","MML+6 dB","60 dB SPL"]"#)
        #expect(try JSONDecoder().decode([PatientLevel].self, from: Data(json.utf8)) == levels)
    }

    @Test(arguments: [
        ("20 dB", "level '20 dB': not a level (allowed: a number and its scale; e.g. -20 dBFS, -23 LUFS, 60 dB SPL, 40 dB HL, 20 dB SL or MML+6 dB)"),
        ("MML+-6", "level 'MML+-6': not a level (allowed: a number and its scale; e.g. -20 dBFS, -23 LUFS, 60 dB SPL, 40 dB HL, 20 dB SL or MML+6 dB)"),
        ("loud", "level 'loud': not a level (allowed: a number and its scale; e.g. -20 dBFS, -23 LUFS, 60 dB SPL, 40 dB HL, 20 dB SL or MML+6 dB)"),
        ("200 dB SPL", "level 200 dB SPL is out of range (allowed: 0 dB SPL … 140 dB SPL)"),
        ("3 dBFS", "level 3 dBFS is out of range (allowed: -150 dBFS … 0 dBFS)"),
        ("MML+50", "level MML+50 dB is out of range (allowed: MML-40 dB … MML+40 dB)"),
        ("inf dB SL", "level 'inf dB SL': not a level (allowed: a number and its scale; e.g. -20 dBFS, -23 LUFS, 60 dB SPL, 40 dB HL, 20 dB SL or MML+6 dB)"),
    ])
    func badLevelsAreRefused(text: String, message: String) throws {
        let error = #expect(throws: ShadesError.self) { try PatientLevel(text) }
        #expect(error?.description == message)
        #expect(error?.parameter?.rawValue == "level")
    }

    /// Tone → its frequency; narrow-band noise → its centre; ripple and coordinated reset → the tinnitus
    /// frequency (the sham's too); noise colours, a file, a mix → broadband.
    @Test func eachKindSaysWhatItsLevelReHearingUses() throws {
        #expect(Sound(.tone(frequencyHz: 6000)).hearingReference == .frequency(hertz: 6000, what: "the tone's frequency"))
        #expect(Sound(.narrowBandNoise(centreHz: 4000, widthOctaves: 0.5)).hearingReference.frequencyHz == 4000)
        var ripple = SpectralRipple(tinnitusFrequencyHz: 5000)
        #expect(Sound(.spectralRipple(ripple)).hearingReference.frequencyHz == 5000)
        ripple.sham = true
        #expect(Sound(.spectralRipple(ripple)).hearingReference.frequencyHz == 5000)
        #expect(Sound(.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 3000))).hearingReference.frequencyHz == 3000)
        #expect(Sound(.noise(colour: .pink)).hearingReference == .broadband(sound: "a pink sound"))
        #expect(Sound(.file(SoundFileReference(path: "song.flac"))).hearingReference == .broadband(sound: "a music file"))
        #expect(Sound(.mix([Layer(Sound(.tone(frequencyHz: 1000)))])).hearingReference == .broadband(sound: "a mix of sounds"))
    }
}

import Foundation
import Testing
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesStudy

/// Every refusal of a level, in one line naming the patient, the sound, the level asked and, at a limit, the
/// highest possible; the highest possible named is one the renderer then writes without a refusal.
@Suite struct LevelRefusalTests {
    static func refusal(_ level: PatientLevel, _ sound: Sound, patient: PatientMeasurements? = nil, ears: Ears = .right,
                        ceiling: Double = 100, format: SampleFormat = .s24,
                        calibration: HeadphoneCalibration = StudyFixtures.calibration) throws -> String {
        let patient = try patient ?? LevelResolverTests.patient()
        let resolver = try LevelResolver(calibration: calibration, ceilingDBSPL: ceiling, sampleFormat: format)
        let error = #expect(throws: ShadesError.self) {
            try resolver.resolve(level, of: LevelResolverTests.request(sound), for: patient, ears: ears)
        }
        let message = try #require(error?.description)
        #expect(!message.contains("\n"))
        return message
    }

    /// dB SL and dB HL of a sound with no defining frequency: "dB SL of a music file has no meaning".
    @Test func meaninglessCombinations() throws {
        #expect(try Self.refusal(.dBSL(20), Sound(.file(SoundFileReference(path: "song.flac"))))
                == "patient P01, file song.flac: dB SL of a music file has no meaning: it has no defining frequency (allowed: dBFS, LUFS, dB SPL or MML+x dB)")
        #expect(try Self.refusal(.dBHL(40), Sound(.noise(colour: .pink)))
                == "patient P01, pink beta=1: dB HL of a pink sound has no meaning: it has no defining frequency (allowed: dBFS, LUFS, dB SPL or MML+x dB)")
    }

    /// A tone above the audiogram's highest measured frequency (8 kHz), and a patient without an MML.
    @Test func measurementsThatDoNotReach() throws {
        #expect(try Self.refusal(.dBSL(20), Sound(.tone(frequencyHz: 12_000)))
                == "patient P01, tone frequency=12000Hz: 12000 Hz is outside the right ear's audiogram (allowed: 250 … 8000 Hz, the measured frequencies; no extrapolation)")
        let noMML = PatientMeasurements(id: "P09", audiogram: try StudyFixtures.simulatedAudiogram())
        #expect(try Self.refusal(.reMML(6), Sound(.noise(colour: .white)), patient: noMML)
                == "patient P09, white beta=0 distribution=gaussian: no minimum masking level (allowed: the JSON `shades mml -o FILE` writes)")
        var noBroadband = StudyFixtures.calibration
        noBroadband.broadbandFullScaleDBSPL = nil
        #expect(try Self.refusal(.dBSPL(60), Sound(.noise(colour: .pink)), calibration: noBroadband)
                == "patient P01, pink beta=1: the calibration gives no broadband dB SPL, which a pink sound needs (allowed: a calibration with broadbandFullScaleDBSPL)")
    }

    /// 60 dB SL of the 6 kHz tone (Neff 2019's level) for this patient, 129.5 dB SPL, is above a 90 dB SPL ceiling
    /// and the tone's clipping limit (S(6 kHz) − 3.01 = 94.6 dB SPL): the highest possible is the lower, the
    /// ceiling, in dB SL, and resolving that level succeeds. Under a 100 dB SPL ceiling the clipping limit is
    /// the lower.
    @Test func aboveTheCeiling() throws {
        let patient = try LevelResolverTests.patient()
        let request = LevelResolverTests.request(Sound(.tone(frequencyHz: 6000)))
        let resolver = try LevelResolverTests.resolver(ceiling: 90)
        let at20 = try resolver.resolve(.dBSL(20), of: request, for: patient, ears: .right)
        let spl60 = at20.splDB + 40
        let highest = ((60 - (spl60 - 90)) * 10).rounded(.down) / 10
        #expect(try Self.refusal(.dBSL(60), Sound(.tone(frequencyHz: 6000)), ceiling: 90)
                == "patient P01, tone frequency=6000Hz: 60 dB SL is \(formatNumber(spl60, roundedTo: 1)) dB SPL, above the safety ceiling of 90 dB SPL and would clip in s24 (-3.01 dBFS RMS at most); the highest possible is \(formatNumber(highest)) dB SL (90 dB SPL)")
        #expect(try resolver.resolve(.dBSL(highest), of: request, for: patient, ears: .right).splDB <= 90)
        let s6k = 100 - 4 * StudyFixtures.fraction(6000, 4000, 8000)
        let clipSPL = s6k - 3.010_299_956_639_812
        let clipped = try Self.refusal(.dBSL(60), Sound(.tone(frequencyHz: 6000)), ceiling: 100)
        #expect(clipped.hasSuffix("above the safety ceiling of 100 dB SPL and would clip in s24 (-3.01 dBFS RMS at most); the highest possible is \(formatNumber(((60 - (spl60 - clipSPL)) * 10).rounded(.down) / 10)) dB SL (\(formatNumber((clipSPL * 10).rounded(.down) / 10)) dB SPL)"))
    }

    /// White noise at −3 dBFS RMS clips (Gaussian peaks are about 14 dB above the RMS): refused with the
    /// highest RMS that fits, which then renders.
    @Test func wouldClip() throws {
        let message = try Self.refusal(.dBFS(-3), Sound(.noise(colour: .white)), ceiling: 140)
        #expect(message.hasPrefix("patient P01, white beta=0 distribution=gaussian: -3 dBFS is 96 dB SPL, would clip in s24 ("))
        let highest = try #require(Double(message.split(separator: "the highest possible is ")[1].split(separator: " ")[0]))
        #expect(highest < -10 && highest > -20)
        let request = LevelResolverTests.request(Sound(.noise(colour: .white)))
        let resolved = try LevelResolverTests.resolver(ceiling: 140).resolve(.dBFS(highest), of: request, for: try LevelResolverTests.patient(), ears: .both)
        _ = try StudyFixtures.render(request, at: resolved, name: "highest-white")
    }

    /// A level below what s16 carries (−69.9 dBFS), and a ceiling out of range.
    @Test func belowTheFormatAndBadCeilings() throws {
        let message = try Self.refusal(.dBSPL(20), Sound(.tone(frequencyHz: 1000)), format: .s16)
        #expect(message.hasPrefix("patient P01, tone frequency=1000Hz: level -80 dBFS is below what s16 carries"))
        let error = #expect(throws: ShadesError.self) { try LevelResolver(calibration: StudyFixtures.calibration, ceilingDBSPL: 150) }
        #expect(error?.description == "safety ceiling 150 dB SPL is out of range (allowed: 0 … 140 dB SPL)")
    }
}

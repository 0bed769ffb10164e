import Foundation
import Testing
import ShadesDSP
import ShadesRender
import ShadesProcedures
import ShadesStudy

/// The headphone calibration: the old `audiometry --calibration` file still reads; the triangle H = R − S gives
/// the third table from any two; tables are linear in log frequency between held frequencies (checked against
/// hand-computed values) and refuse frequencies outside them; the example beside the README reads.
@Suite struct HeadphoneCalibrationTests {
    static func decode(_ json: String) throws -> HeadphoneCalibration {
        try JSONDecoder().decode(HeadphoneCalibration.self, from: Data(json.utf8))
    }

    /// An old file (referenceDBFS only) gives dB HL, interpolated in log frequency, and the same
    /// AudiometerCalibration `shades audiometry` reads; dB SPL is refused in one line.
    @Test func anOldFileGivesHearingLevels() throws {
        let json = #"{"headphones": "HDA 300", "referenceDBFS": {"1000": -95, "4000": -100}}"#
        let calibration = try Self.decode(json)
        #expect(abs(try calibration.dBFS(hearingLevelDB: 30, atHz: 2000) - (30 - 95 - 5 * 0.5)) < 1e-9)
        let old = try JSONDecoder().decode(AudiometerCalibration.self, from: Data(json.utf8))
        #expect(calibration.audiometerCalibration() == old)
        let error = #expect(throws: ShadesError.self) { try calibration.fullScaleSPL(atHz: 1000) }
        #expect(error?.description == "the calibration gives no dB SPL at 1000 Hz (allowed: a calibration with fullScaleDBSPL, or retsplDB with referenceDBFS)")
    }

    /// Any two of H, R and S give the third: S = R − H, H = R − S.
    @Test func theTriangleGivesTheThirdTable() throws {
        let withRETSPL = try Self.decode(#"{"referenceDBFS": {"1000": -95, "2000": -96}, "retsplDB": {"1000": 7, "2000": 9}}"#)
        #expect(abs(try withRETSPL.fullScaleSPL(atHz: 1000) - 102) < 1e-9)
        #expect(abs(try withRETSPL.fullScaleSPL(atHz: 2000) - 105) < 1e-9)
        let c = StudyFixtures.calibration
        #expect(abs(try c.referenceLevelDBFS(atHz: 1000) - (7 - 100)) < 1e-9)
        // 6 kHz, between 4 and 8 kHz: R and S each linear in log frequency.
        let t = StudyFixtures.fraction(6000, 4000, 8000)
        #expect(abs(try c.referenceLevelDBFS(atHz: 6000) - ((9.5 + 3.5 * t) - (100 - 4 * t))) < 1e-9)
        #expect(abs(try c.dBFS(hearingLevelDB: 40, atHz: 6000) - (40 + (9.5 + 3.5 * t) - (100 - 4 * t))) < 1e-9)
    }

    /// S at 1.5 kHz between 1 kHz (100) and 2 kHz (104): 100 + 4·log2(1.5) = 102.3399 dB SPL; broadband uses its own value.
    @Test func tablesAreLinearInLogFrequency() throws {
        let c = StudyFixtures.calibration
        #expect(abs(try c.fullScaleSPL(atHz: 1500) - 102.339_850) < 1e-6)
        #expect(abs(try c.fullScaleSPL(atHz: 2000 * 2.0.squareRoot()) - 102) < 1e-9)
        #expect(try c.splDB(dBFS: -40, at: .broadband(sound: "pink")) == 59)
        #expect(try c.dBFS(splDB: 60, at: .frequency(hertz: 1000, what: "the tone's frequency")) == -40)
    }

    @Test func aFrequencyOutsideTheTablesIsRefused() throws {
        let error = #expect(throws: ShadesError.self) { try StudyFixtures.calibration.fullScaleSPL(atHz: 12_000) }
        #expect(error?.description == "the calibration gives no dB SPL at 12000 Hz (allowed: 250 … 8000 Hz, the frequencies it holds; no extrapolation)")
        let hl = #expect(throws: ShadesError.self) { try StudyFixtures.calibration.referenceLevelDBFS(atHz: 200) }
        #expect(hl?.description.hasPrefix("the calibration gives no dB HL at 200 Hz") == true)
        // R at one frequency only: H = R − S there alone.
        let single = try Self.decode(#"{"fullScaleDBSPL": {"1000": 100, "4000": 101}, "retsplDB": {"1000": 7}}"#)
        #expect(try single.referenceLevelDBFS(atHz: 1000) == -93)
        let one = #expect(throws: ShadesError.self) { try single.referenceLevelDBFS(atHz: 4000) }
        #expect(one?.description == "the calibration gives no dB HL at 4000 Hz (allowed: 1000 Hz, the frequencies it holds; no extrapolation)")
    }

    /// Tables that disagree, bad keys and values out of range are refused in one line naming the entry.
    @Test func badFilesAreRefused() throws {
        let cases: [(String, String)] = [
            (#"{"referenceDBFS": {"1000": -90}, "retsplDB": {"1000": 7}, "fullScaleDBSPL": {"1000": 100}}"#,
             "calibration referenceDBFS at 1000 Hz, -90 dBFS, disagrees with retsplDB − fullScaleDBSPL, -93 dBFS (allowed: within 0.5 dB)"),
            (#"{"fullScaleDBSPL": {"1 kHz": 100}}"#, "calibration fullScaleDBSPL key '1 kHz' is not a frequency (allowed: 20 … 24000 Hz, e.g. \"1000\")"),
            (#"{"fullScaleDBSPL": {"1000": 300}}"#, "calibration fullScaleDBSPL at 1000 Hz, 300 dB SPL, is out of range (allowed: 0 … 200 dB SPL)"),
            (#"{"headphones": "x"}"#, "the calibration holds no level (allowed: referenceDBFS, fullScaleDBSPL or broadbandFullScaleDBSPL)"),
        ]
        for (json, message) in cases {
            let error = #expect(throws: ShadesError.self) { try Self.decode(json) }
            #expect(error?.description == message)
        }
        let path = NSTemporaryDirectory() + "shades-study-bad-calibration-\(getpid()).json"
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: ShadesError.self) { try HeadphoneCalibration.read(path) }
        #expect(error?.description.hasPrefix("\(path): not a headphone calibration (allowed: JSON with referenceDBFS") == true)
        #expect(error?.description.contains("\n") == false)
    }

    /// Presets/studies/example-calibration.json: H(1 kHz) = 7 − 100 = −93 dBFS; 10 kHz has S but no RETSPL, so
    /// no dB HL and no entry in the audiometer's calibration.
    @Test func theExampleReads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let c = try HeadphoneCalibration.read(root.appendingPathComponent("Presets/studies/example-calibration.json").path)
        #expect(try c.referenceLevelDBFS(atHz: 1000) == -93)
        #expect(try c.fullScaleSPL(atHz: 10_000) == 92)
        #expect(c.broadbandFullScaleDBSPL == 99)
        let audiometer = c.audiometerCalibration()
        #expect(try audiometer.referenceDBFS(atHz: 4000) == 9.5 - 100.5)
        #expect(throws: ShadesError.self) { try audiometer.referenceDBFS(atHz: 10_000) }
    }
}

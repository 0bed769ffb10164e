import Foundation
import Testing
import ShadesDSP
import ShadesProcedures
import ShadesStudy

/// A patient's measurements: thresholds linear in log frequency between measured ones (hand-computed), never
/// extrapolated; no-response frequencies are not thresholds; the files `audiometry` and `mml` write read back.
@Suite struct PatientMeasurementsTests {
    /// 1, 2, 4 kHz at 20, 35, 50 dB HL in the right ear; 8 kHz no response.
    static let patient = PatientMeasurements(id: "P01", audiogram: Audiogram(scale: .hearingLevel, left: nil, right: [
        .init(frequencyHz: 1000, thresholdDB: 20), .init(frequencyHz: 2000, thresholdDB: 35), .init(frequencyHz: 4000, thresholdDB: 50),
        .init(frequencyHz: 8000, thresholdDB: nil, note: "no response")]))

    /// 3 kHz: 35 + 15·log(1.5)/log(2) = 43.7744 dB HL; 2828.4 Hz (half-way in octaves): 42.5; measured ones exact.
    @Test func thresholdsAreLinearInLogFrequency() throws {
        #expect(abs(try Self.patient.thresholdDB(atHz: 3000, ear: .right) - 43.774_437_5) < 1e-6)
        #expect(abs(try Self.patient.thresholdDB(atHz: 2000 * 2.0.squareRoot(), ear: .right) - 42.5) < 1e-9)
        #expect(try Self.patient.thresholdDB(atHz: 4000, ear: .right) == 50)
        #expect(try Self.patient.thresholdDB(atHz: 1000, ear: .right) == 20)
        // dBFS through the calibration: T(f) + R(f) − S(f) at 3 kHz.
        let t = StudyFixtures.fraction(3000, 2000, 4000)
        let expected = 43.774_437_5 + (9 + 0.5 * t) - (104 - 4 * t)
        #expect(abs(try Self.patient.thresholdDBFS(atHz: 3000, ear: .right, calibration: StudyFixtures.calibration) - expected) < 1e-6)
    }

    /// Beyond the measured range (8 kHz had no response, so the range ends at 4 kHz), an ear with no thresholds,
    /// no audiogram: one line each, naming the patient.
    @Test func whatCannotBeReadIsRefused() throws {
        let cases: [(PatientMeasurements, Double, Ears, String)] = [
            (Self.patient, 6000, .right, "patient P01: 6000 Hz is outside the right ear's audiogram (allowed: 1000 … 4000 Hz, the measured frequencies; no extrapolation)"),
            (Self.patient, 500, .right, "patient P01: 500 Hz is outside the right ear's audiogram (allowed: 1000 … 4000 Hz, the measured frequencies; no extrapolation)"),
            (Self.patient, 2000, .left, "patient P01: the left ear has no threshold in the audiogram (allowed: an ear with measured thresholds)"),
            (PatientMeasurements(id: "P02"), 2000, .left, "patient P02: no audiogram (allowed: the JSON `shades audiometry -o FILE` writes)"),
        ]
        for (patient, f, ear, message) in cases {
            let error = #expect(throws: ShadesError.self) { try patient.thresholdDB(atHz: f, ear: ear) }
            #expect(error?.description == message)
        }
        let error = #expect(throws: ShadesError.self) { try Self.patient.mmlDBFS() }
        #expect(error?.description == "patient P01: no minimum masking level (allowed: the JSON `shades mml -o FILE` writes)")
    }

    /// The JSON of a simulated audiometry and MML (as `shades audiometry --simulate-audiogram` and `shades mml
    /// --simulate` write them) reads back; a file of the wrong kind is refused naming the patient and the file.
    @Test func theProceduresFilesRead() throws {
        let folder = NSTemporaryDirectory() + "shades-study-patient-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audiogram = try StudyFixtures.simulatedAudiogram(), mml = try StudyFixtures.simulatedMML()
        try JSONEncoder().encode(audiogram).write(to: URL(fileURLWithPath: folder + "/audiogram.json"))
        try JSONEncoder().encode(mml).write(to: URL(fileURLWithPath: folder + "/mml.json"))
        let patient = try PatientMeasurements.read(id: "P03", audiogramPath: folder + "/audiogram.json", mmlPath: folder + "/mml.json")
        #expect(patient.audiogram == audiogram)
        #expect(try patient.mmlDBFS() == -50)
        // The listener's thresholds land on the method's 5 dB grid: within 5 dB at each measured frequency.
        for (f, t) in StudyFixtures.listenerThresholds { #expect(abs(try patient.thresholdDB(atHz: f, ear: .left) - t) <= 5) }
        let error = #expect(throws: ShadesError.self) {
            try PatientMeasurements.read(id: "P03", audiogramPath: folder + "/mml.json", mmlPath: nil)
        }
        #expect(error?.description == "patient P03: \(folder)/mml.json is not a `shades audiometry` result (allowed: the JSON `shades audiometry` -o FILE writes)")
    }
}

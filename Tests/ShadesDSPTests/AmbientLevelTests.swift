import Testing
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct AmbientLevelTests {
    /// IEC 61672-1:2002 Table 2: nominal A-weighting (dB) and class 1 tolerance limits (+, − dB) at the
    /// base-10 third-octave frequencies 10 Hz … 20 kHz (compare at the exact frequencies 10^(n/10) kHz).
    static let iecTable: [(nominalHz: Double, aDB: Double, upper: Double, lower: Double)] = [
        (10, -70.4, 3.5, .infinity), (12.5, -63.4, 3.0, .infinity), (16, -56.7, 2.5, 4.5), (20, -50.5, 2.5, 2.5),
        (25, -44.7, 2.5, 2.0), (31.5, -39.4, 2.0, 2.0), (40, -34.6, 1.5, 1.5), (50, -30.2, 1.5, 1.5),
        (63, -26.2, 1.5, 1.5), (80, -22.5, 1.5, 1.5), (100, -19.1, 1.5, 1.5), (125, -16.1, 1.5, 1.5),
        (160, -13.4, 1.5, 1.5), (200, -10.9, 1.5, 1.5), (250, -8.6, 1.4, 1.4), (315, -6.6, 1.4, 1.4),
        (400, -4.8, 1.4, 1.4), (500, -3.2, 1.4, 1.4), (630, -1.9, 1.4, 1.4), (800, -0.8, 1.4, 1.4),
        (1_000, 0, 1.1, 1.1), (1_250, 0.6, 1.4, 1.4), (1_600, 1.0, 1.6, 1.6), (2_000, 1.2, 1.6, 1.6),
        (2_500, 1.3, 1.6, 1.6), (3_150, 1.2, 1.6, 1.6), (4_000, 1.0, 1.6, 1.6), (5_000, 0.5, 2.1, 2.1),
        (6_300, -0.1, 2.1, 2.6), (8_000, -1.1, 2.1, 3.1), (10_000, -2.5, 2.6, 3.6), (12_500, -4.3, 3.0, 6.0),
        (16_000, -6.6, 3.5, 17.0), (20_000, -9.3, 4.0, .infinity),
    ]

    @Test(arguments: [44_100.0, 48_000.0])
    func aWeightingMeetsIECClass1AndFollowsTheAnalogCurve(sampleRate: Double) {
        for (n, row) in Self.iecTable.enumerated() {
            let f = 1_000 * pow(10, Double(n - 20) / 10)  // exact frequency of the nominal one
            let digital = AWeighting.responseDB(frequencyHz: f, sampleRate: sampleRate)
            let deviation = digital - row.aDB
            #expect(deviation <= row.upper && deviation >= -row.lower,
                    "\(row.nominalHz) Hz at \(sampleRate): \(digital) dB, table \(row.aDB)")
            // Against the exact analog curve (the table is rounded to 0.1 dB).
            let analog = AWeighting.analogResponseDB(frequencyHz: f)
            #expect(abs(analog - row.aDB) <= 0.05, "analog curve \(analog) dB at \(row.nominalHz) Hz")
            let limit = f <= 12_600 ? 0.06 : f <= 16_100 ? 0.12 : 0.32
            #expect(abs(digital - analog) <= limit, "\(row.nominalHz) Hz at \(sampleRate): off the analog curve by \(digital - analog) dB")
        }
        #expect(abs(AWeighting.responseDB(frequencyHz: 1_000, sampleRate: sampleRate)) < 1e-9)
    }

    @Test(arguments: [8_000.0, 16_000, 22_050, 32_000, 88_200, 96_000, 192_000])
    func aWeightingHoldsAtOtherSampleRates(sampleRate: Double) {
        var f = 10.0
        while f <= min(20_000, 0.98 * sampleRate / 2) {
            let deviation = AWeighting.responseDB(frequencyHz: f, sampleRate: sampleRate) - AWeighting.analogResponseDB(frequencyHz: f)
            #expect(abs(deviation) <= (f <= sampleRate / 4 ? 0.1 : 0.7), "\(f) Hz at \(sampleRate): \(deviation) dB")
            f *= pow(2, 1.0 / 12)
        }
    }

    func measure(_ buffer: AudioBuffer, sampleRate: Double = 48_000, calibration: SPLCalibration? = nil,
                 listeningSeconds: Double? = nil) throws -> AmbientReport {
        var meter = try AmbientLevel(sampleRate: sampleRate, channelCount: buffer.channelCount)
        buffer.withBlock { meter.add($0) }
        return meter.report(calibration: calibration, listeningSeconds: listeningSeconds)
    }

    @Test func laeqOfSinesFollowsTheWeighting() throws {
        let oneK = try measure(buffer([sine(frequencyHz: 1_000, levelDBFS: -20, frames: 480_000)]))
        #expect(abs(oneK.laeqDBFS! + 20) < 0.01)
        // A steady sine: LAFmax exceeds LAeq only by the F ripple and the start.
        #expect(oneK.lafmaxDBFS! >= oneK.laeqDBFS! && oneK.lafmaxDBFS! < -19.9)
        let low = try measure(buffer([sine(frequencyHz: 100, levelDBFS: -20, frames: 480_000)]))
        #expect(abs(low.laeqDBFS! - (-20 - 19.1)) < 0.1)
        #expect(abs(low.laeqDBFS! - (-20 + AWeighting.analogResponseDB(frequencyHz: 100))) < 0.02)
        let rate = 44_100.0
        let high = try measure(buffer([sine(frequencyHz: 10_000, levelDBFS: -20, frames: 441_000, sampleRate: rate)]), sampleRate: rate)
        #expect(abs(high.laeqDBFS! - (-20 + AWeighting.analogResponseDB(frequencyHz: 10_000))) < 0.06)
    }

    @Test func lafmaxOfABurstRisesWithTheFastTimeConstant() throws {
        let rate = 48_000
        func burst(seconds: Double) -> [Float] {
            var x = [Float](repeating: 0, count: 10 * rate)
            let tone = sine(frequencyHz: 1_000, levelDBFS: -20, frames: Int(seconds * Double(rate)))
            x.replaceSubrange(4 * rate..<4 * rate + tone.count, with: tone)
            return x
        }
        let long = try measure(buffer([burst(seconds: 1)]))
        #expect(abs(long.lafmaxDBFS! + 20) < 0.05)          // 1 s = 8 τ: within 0.002 dB of the tone
        #expect(abs(long.laeqDBFS! - (-20 - 10)) < 0.02)     // 1 s of 10 s
        let short = try measure(buffer([burst(seconds: 0.125)]))
        // After one time constant the F level is 10·log10(1 − 1/e) = −1.99 dB below the tone.
        #expect(abs(short.lafmaxDBFS! - (-20 + 10 * log10(1 - exp(-1)))) < 0.05)
    }

    @Test func theLouderChannelLeadsAndChannelsAreIndependent() throws {
        let frames = 96_000
        let report = try measure(buffer([sine(frequencyHz: 1_000, levelDBFS: -30, frames: frames),
                                         sine(frequencyHz: 1_000, levelDBFS: -20, frames: frames),
                                         sine(frequencyHz: 1_000, levelDBFS: -40, frames: frames)]))
        let expected = [-30.0, -20, -40]
        for c in 0..<3 { #expect(abs(report.laeqDBFSPerChannel[c]! - expected[c]) < 0.02) }
        #expect(report.laeqDBFS == report.laeqDBFSPerChannel[1])
        #expect(report.lafmaxDBFS == report.lafmaxDBFSPerChannel.compactMap { $0 }.max())
    }

    @Test func silenceHasNoLevelAndNoDose() throws {
        let calibration = try SPLCalibration(splDB: 94, dbfs: -20)
        let report = try measure(buffer([[Float](repeating: 0, count: 48_000)]), calibration: calibration, listeningSeconds: 3_600)
        #expect(report.laeqDBFS == nil && report.lafmaxDBFS == nil && report.laeqDBA == nil)
        #expect(report.doseNIOSHPercent == nil && report.allowedListeningSeconds == nil)
    }

    @Test func blockSizesDoNotChangeTheResult() throws {
        let noise = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, levelDBFS: -15)
            .renderBuffer(frameCount: 150_001)
        let whole = try measure(noise)
        var meter = try AmbientLevel(sampleRate: 48_000, channelCount: 2)
        feedInRandomBlocks(noise, maxBlock: 5_000, seed: 3) { meter.add($0) }
        #expect(meter.report() == whole)
        var planar = try AmbientLevel(sampleRate: 48_000, channelCount: 2)
        noise.withChannel(0) { a in noise.withChannel(1) { b in planar.add([UnsafeBufferPointer(a), UnsafeBufferPointer(b)]) } }
        #expect(planar.report() == whole)
    }

    @Test func calibrationTurnsDBFSIntoSPL() throws {
        let calibration = try SPLCalibration(parsing: "94dB@-20dBFS")
        #expect(calibration.splDB == 94 && calibration.dbfs == -20 && calibration.offsetDB == 114)
        #expect(try SPLCalibration(parsing: " 94 dB SPL @ -20 dBFS ") == calibration)
        #expect(try SPLCalibration(parsing: "94.5@-18.5") == SPLCalibration(splDB: 94.5, dbfs: -18.5))
        let report = try measure(buffer([sine(frequencyHz: 1_000, levelDBFS: -20, frames: 96_000)]), calibration: calibration)
        #expect(abs(report.laeqDBA! - 94) < 0.01)
        #expect(report.lafmaxDBA! == report.lafmaxDBFS! + 114)
        #expect(report.doseNIOSHPercent == nil)  // no listening time given
    }

    @Test(arguments: ["94dB", "94dB@", "@-20dBFS", "loud@-20dBFS", "94dB@-20dBFS@1", "94dB@-20dB SPL", "300dB@-20dBFS", "94dB@-300dBFS", ""])
    func badCalibrationsAreRejected(text: String) {
        #expect(throws: ShadesError.self) { try SPLCalibration(parsing: text) }
        do { _ = try SPLCalibration(parsing: text) } catch { #expect(error.parameter == .calibration) }
    }

    @Test func nioshDoseUsesEightHoursAt85dBAAndA3dBExchangeRate() throws {
        let hour = 3_600.0
        #expect(abs(NoiseDose.nioshPermissibleSeconds(levelDBA: 85) - 8 * hour) < 1e-9)
        #expect(abs(NoiseDose.nioshPercent(levelDBA: 88, listeningSeconds: 4 * hour) - 100) < 1e-9)
        #expect(abs(NoiseDose.nioshPercent(levelDBA: 94, listeningSeconds: hour) - 100) < 1e-9)
        #expect(abs(NoiseDose.nioshPercent(levelDBA: 82, listeningSeconds: 8 * hour) - 50) < 1e-9)
        // Through the meter: a tone calibrated to 88 dB(A), heard for 2 h, is half the daily dose.
        let calibration = try SPLCalibration(splDB: 88, dbfs: -20)
        let report = try measure(buffer([sine(frequencyHz: 1_000, levelDBFS: -20, frames: 96_000)]),
                                 calibration: calibration, listeningSeconds: 2 * hour)
        #expect(abs(report.doseNIOSHPercent! - 50) < 0.2)
        #expect(abs(report.allowedListeningSeconds! / hour - 4) < 0.01)
    }

    @Test func badSettingsAreRejected() {
        #expect(throws: ShadesError.self) { try AmbientLevel(sampleRate: 4_000, channelCount: 1) }
        #expect(throws: ShadesError.self) { try AmbientLevel(sampleRate: 48_000, channelCount: 0) }
    }
}

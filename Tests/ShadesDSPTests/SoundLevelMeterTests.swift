import Testing
import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live sound level meter's arithmetic (issue 22): the C weighting against IEC 61672-1, and
/// `SoundLevelMeter` fed any blocks: per-second RMS, LAeq, LAFmax and LCpeak of known signals, the same readings
/// whatever the block sizes, totals equal to `AmbientLevel`'s (what `shades analyze` reports), calibrated levels
/// and the NIOSH dose.
@Suite struct SoundLevelMeterTests {
    /// IEC 61672-1 Table 3: C weighting in dB at nominal frequencies (1 kHz · 10^(n/10)).
    static let cTable: [(nominalHz: Double, cDB: Double)] = [
        (31.5, -3.0), (63, -0.8), (125, -0.2), (250, 0.0), (500, 0.0), (1_000, 0.0), (2_000, -0.2), (4_000, -0.8),
        (8_000, -3.0), (16_000, -8.5),
    ]

    @Test(arguments: [44_100.0, 48_000.0])
    func cWeightingFollowsTheAnalogCurveAndTheTable(sampleRate: Double) {
        for row in Self.cTable {
            let f = 1_000 * pow(10, (10 * log10(row.nominalHz / 1_000)).rounded() / 10)
            let analog = CWeighting.analogResponseDB(frequencyHz: f)
            #expect(abs(analog - row.cDB) <= 0.05, "\(row.nominalHz) Hz: analog \(analog) dB, table \(row.cDB)")
        }
        var f = 10.0
        let cascade = IIRCascade(sections: CWeighting.sections(sampleRate: sampleRate))
        while f <= 16_000 {
            let digital = Decibels.fromAmplitude(cascade.magnitude(omega: 2 * Double.pi * f / sampleRate))
            let limit = f <= 12_600 ? 0.06 : 0.12
            #expect(abs(digital - CWeighting.analogResponseDB(frequencyHz: f)) <= limit, "\(f) Hz at \(sampleRate)")
            f *= pow(2, 1.0 / 6)
        }
    }

    /// `seconds` of stereo: a 1 kHz sine at −20 dBFS RMS in both channels, then `noiseSeconds` of uniform noise.
    func signal(seconds: Int, noiseSeconds: Int = 0) -> AudioBuffer {
        let rate = 48_000, frames = (seconds + noiseSeconds) * rate
        let buffer = AudioBuffer(channelCount: 2, frameCapacity: frames)
        var state: UInt64 = 7
        for c in 0..<2 {
            buffer.withChannel(c) { out in
                for i in 0..<frames {
                    if i < seconds * rate {
                        out[i] = Float(0.1 * 2.0.squareRoot() * sin(2 * Double.pi * 1_000 * Double(i) / 48_000))
                    } else {
                        state = state &* 6364136223846793005 &+ 1442695040888963407
                        out[i] = Float(Double(state >> 40) / Double(1 << 24) - 0.5) * 0.2
                    }
                }
            }
        }
        return buffer
    }

    func meter(_ buffer: AudioBuffer, blocks maxBlock: Int, seed: UInt64 = 1, calibration: SPLCalibration? = nil) throws -> SoundLevelMeter {
        var meter = try SoundLevelMeter(sampleRate: 48_000, channelCount: 2, calibration: calibration)
        var state = seed, done = 0
        while done < buffer.frameCapacity {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let size = min(buffer.frameCapacity - done, Int(state >> 33) % maxBlock + 1)
            buffer.withBlock(frames: done..<done + size) { meter.add($0) }
            done += size
        }
        return meter
    }

    @Test func aSineReadsItsLevelsEverySecond() throws {
        var m = try meter(signal(seconds: 5), blocks: 4_800)
        let readings = m.takeReadings()
        #expect(readings.count == 5 && readings.map(\.startSeconds) == [0, 1, 2, 3, 4])
        for r in readings.dropFirst() {  // the first second holds the filters' start
            #expect(abs(r.rmsDBFS! + 20) < 0.001 && abs(r.laeqDBFS! + 20) < 0.01, "\(r)")
            #expect(r.lafmaxDBFS! >= r.laeqDBFS! && r.lafmaxDBFS! < -19.9, "\(r)")
            #expect(abs(r.lcpeakDBFS! - (-20 + 3.0103)) < 0.02, "\(r)")
            #expect(r.laeqDBA == nil && r.doseNIOSHPercent == nil)
        }
        #expect(m.takeReadings().isEmpty)
    }

    @Test func readingsDoNotDependOnTheBlockSizesAndTotalsAreAnalyzes() throws {
        let buffer = signal(seconds: 3, noiseSeconds: 2)
        var a = try meter(buffer, blocks: 7, seed: 1)
        var b = try meter(buffer, blocks: 5_000, seed: 2)
        var c = try meter(buffer, blocks: 100_000, seed: 3)
        let readings = a.takeReadings()
        #expect(readings.count == 5)
        #expect(readings == b.takeReadings() && readings == c.takeReadings())
        #expect(a.total == b.total && a.total == c.total)
        var ambient = try AmbientLevel(sampleRate: 48_000, channelCount: 2)
        buffer.withBlock { ambient.add($0) }
        let report = ambient.report()
        #expect(abs(a.total.laeqDBFS! - report.laeqDBFS!) < 1e-9 && abs(a.total.lafmaxDBFS! - report.lafmaxDBFS!) < 1e-9)
        // The seconds' LAeq, power-averaged, are the total's; the loudest LAFmax is the total's.
        let mean = readings.map { pow(10, $0.laeqDBFS! / 10) }.reduce(0, +) / 5
        #expect(abs(10 * log10(mean) - a.total.laeqDBFS!) < 1e-6)
        #expect(readings.map(\.lafmaxDBFS!).max() == a.total.lafmaxDBFS)
        #expect(readings.map(\.lcpeakDBFS!).max() == a.total.lcpeakDBFS)
        // The noise (uniform ±0.1: RMS 0.0577, −24.77 dBFS) in the last two seconds.
        #expect(abs(readings[4].rmsDBFS! - 20 * log10(0.1 / 3.0.squareRoot())) < 0.02)
    }

    @Test func calibrationGivesSoundPressureLevelsAndTheDose() throws {
        let calibration = try SPLCalibration(splDB: 94, dbfs: -20)
        var m = try meter(signal(seconds: 4), blocks: 480, calibration: calibration)
        let readings = m.takeReadings()
        let last = try #require(readings.last)
        #expect(abs(last.laeqDBA! - 94) < 0.01 && abs(last.lafmaxDBA! - last.lafmaxDBFS! - 114) < 1e-9)
        #expect(abs(last.lcpeakDBC! - last.lcpeakDBFS! - 114) < 1e-9)
        // NIOSH: 94 dBA is allowed for 1 h; 4 s of it is 4/3600 of the day's dose.
        let total = m.total
        #expect(abs(total.doseNIOSHPercent! - 100 * 4 / 3_600 * pow(2, (total.laeqDBA! - 94) / 3)) < 1e-9)
        #expect(readings.map(\.doseNIOSHPercent!) == readings.map(\.doseNIOSHPercent!).sorted())
    }
}

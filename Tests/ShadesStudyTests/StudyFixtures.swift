import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesStudy
import ShadesTestSupport

/// What the level suites share: a calibration with hand-checkable tables, a simulated patient, and the level of
/// a written file measured from its samples.
enum StudyFixtures {
    /// S(f), dB SPL at 0 dBFS, and R(f), RETSPL (ISO 389-1, TDH 39), at the audiometric octaves.
    static let fullScale: [Double: Double] = [250: 99, 500: 100, 1000: 100, 2000: 104, 4000: 100, 8000: 96]
    static let retspl: [Double: Double] = [250: 25.5, 500: 11.5, 1000: 7, 2000: 9, 4000: 9.5, 8000: 13]
    static let broadbandDBSPL = 99.0
    static let calibration = try! HeadphoneCalibration(headphones: "test", fullScaleDBSPL: fullScale, retsplDB: retspl,
                                                       broadbandFullScaleDBSPL: broadbandDBSPL)

    /// log(f/f₀)/log(f₁/f₀): where f lies between two table frequencies, by hand.
    static func fraction(_ f: Double, _ f0: Double, _ f1: Double) -> Double { log(f / f0) / log(f1 / f0) }

    /// The audiogram (dB HL), answered by a simulated listener without false alarms or misses.
    static let listenerThresholds: [(frequencyHz: Double, thresholdDB: Double)] =
        [(250, 10), (500, 15), (1000, 20), (2000, 35), (4000, 50), (8000, 60)]

    /// `shades audiometry --simulate-audiogram 250:10,…,8000:60` (both ears), as its JSON is read back.
    static func simulatedAudiogram(seed: UInt64 = 1) throws -> Audiogram {
        var listener = try SimulatedAudiometryListener(thresholds: listenerThresholds, seed: seed)
        let audiogram = listener.run(try Audiometry(ears: [.right, .left], frequenciesHz: listenerThresholds.map(\.frequencyHz), scale: .hearingLevel))
        return try JSONDecoder().decode(Audiogram.self, from: JSONEncoder().encode(audiogram))
    }

    /// `shades mml --frequency 6kHz --threshold -60 --simulate 10dB` (covered from −50 dBFS), read back.
    static func simulatedMML() throws -> MinimumMaskingLevel.Result {
        let result = SimulatedTinnitus(maskingLevelDBFS: -50).run(try MinimumMaskingLevel(frequencyHz: 6000, widthOctaves: 1, thresholdDBFS: -60))
        return try JSONDecoder().decode(MinimumMaskingLevel.Result.self, from: JSONEncoder().encode(result))
    }

    /// The RMS of channel `channel` of the file at `path`, dBFS, from its samples (Double sums).
    static func writtenRMSDBFS(_ path: String, channel: Int) throws -> Double {
        let audio = try DecodedAudio(contentsOf: path)
        let sum = audio.buffer.withSamples(channel: channel) { samples in samples.reduce(0.0) { $0 + Double($1) * Double($1) } }
        return Decibels.fromPower(sum / Double(audio.buffer.frameCapacity))
    }

    /// Renders `request` at `resolved`'s policy to a 24-bit WAV in a fresh folder; its path.
    static func render(_ request: RenderRequest, at resolved: ResolvedLevel, name: String) throws -> String {
        var request = request
        request.level = resolved.policy
        let path = temporaryFolder("study-levels") + "/\(name).wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .s24)
        return path
    }
}

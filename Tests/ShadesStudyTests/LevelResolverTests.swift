import Foundation
import Testing
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesStudy
import ShadesAnalysis
import ShadesTestSupport

/// Levels resolved for a simulated patient, rendered by the renderer, and measured back from the written file's
/// samples through the calibration (by hand, from the tables): within 0.1 dB of what was asked.
@Suite struct LevelResolverTests {
    static let tinnitusHz = 6000.0

    static func patient() throws -> PatientMeasurements {
        PatientMeasurements(id: "P01", audiogram: try StudyFixtures.simulatedAudiogram(), mml: try StudyFixtures.simulatedMML())
    }

    static func resolver(ceiling: Double = 100, format: SampleFormat = .s24) throws -> LevelResolver {
        try LevelResolver(calibration: StudyFixtures.calibration, ceilingDBSPL: ceiling, sampleFormat: format)
    }

    static func request(_ sound: Sound, layout: ChannelLayout = .diotic) -> RenderRequest {
        RenderRequest(sound: sound, durationSeconds: 5, sampleRate: 48_000, layout: layout, seed: 7)
    }

    /// A tone at the tinnitus frequency (6 kHz) at 20 dB SL in the right ear (Neff 2019 used 60 dB SL; 20 keeps
    /// it under the ceiling): the file's RMS minus H(6 kHz) (R − S, by hand) is its dB HL; minus the patient's
    /// threshold there (between the measured 4 and 8 kHz, by hand) its dB SL.
    @Test func aToneAt20dBSLMeasures20dBSL() throws {
        let patient = try Self.patient()
        let request = Self.request(Sound(.tone(frequencyHz: Self.tinnitusHz)), layout: .right)
        let resolved = try Self.resolver().resolve(.dBSL(20), of: request, for: patient, ears: .right)
        let rms = try StudyFixtures.writtenRMSDBFS(try StudyFixtures.render(request, at: resolved, name: "tone-sl"), channel: 1)
        let t = StudyFixtures.fraction(Self.tinnitusHz, 4000, 8000)
        let h = (9.5 + 3.5 * t) - (100 - 4 * t)
        let right = try #require(patient.audiogram?.right)
        let (t4, t8) = (right.first { $0.frequencyHz == 4000 }!.thresholdDB!, right.first { $0.frequencyHz == 8000 }!.thresholdDB!)
        let threshold = t4 + (t8 - t4) * t
        #expect(abs((rms - h) - threshold - 20) < 0.1)
        #expect(resolved.threshold?.ear == .right)
        #expect(abs(resolved.levelAsAsked(measuredRMSDBFS: rms) - 20) < 0.1)
    }

    /// Both ears: the better ear's threshold (here the right ear is made 10 dB worse at 4 kHz … 8 kHz).
    @Test func bothEarsTakeTheBetterThreshold() throws {
        let measured = try StudyFixtures.simulatedAudiogram()
        let worse = measured.right!.map { Audiogram.Threshold(frequencyHz: $0.frequencyHz, thresholdDB: $0.thresholdDB.map { $0 + 10 }) }
        let patient = PatientMeasurements(id: "P02", audiogram: Audiogram(scale: .hearingLevel, left: measured.left, right: worse))
        let request = Self.request(Sound(.tone(frequencyHz: Self.tinnitusHz)))
        let both = try Self.resolver().resolve(.dBSL(10), of: request, for: patient, ears: .both)
        let left = try Self.resolver().resolve(.dBSL(10), of: request, for: patient, ears: .left)
        #expect(both.threshold?.ear == .left)
        #expect(both.rmsDBFS == left.rmsDBFS)
    }

    /// 10 Hz AM white noise at MML + 6 dB (Neff 2019): the file's RMS is the MML's (−50 dBFS) + 6; with the
    /// modulation keeping the peak, the policy is raised so the written RMS still is.
    @Test(arguments: [AmplitudeModulationLevel.rms, .peak])
    func amNoiseAtMMLPlus6MeasuresMMLPlus6(keep: AmplitudeModulationLevel) throws {
        let patient = try Self.patient()
        let sound = Sound(.generator(.noise(colour: .white)), modulation: Modulation(rateHz: 10, depth: 1, keep: keep))
        let request = Self.request(sound, layout: .stereo)
        let resolved = try Self.resolver().resolve(.reMML(6), of: request, for: patient, ears: .both)
        let path = try StudyFixtures.render(request, at: resolved, name: "am-noise-mml-\(keep.rawValue)")
        for channel in 0..<2 {
            let rms = try StudyFixtures.writtenRMSDBFS(path, channel: channel)
            #expect(abs(rms - (-50 + 6)) < 0.1)
        }
        #expect(abs(resolved.splDB - (-44 + StudyFixtures.broadbandDBSPL)) < 1e-9)
    }

    /// 60 dB SPL: narrow-band noise at 1 kHz through S(1 kHz) = 100, pink noise through the broadband value (99);
    /// 40 dB HL of a 2 kHz tone through H(2 kHz) = 9 − 104.
    @Test func soundsAtSPLAndHLMeasureSo() throws {
        let patient = try Self.patient()
        let cases: [(Sound, PatientLevel, Double)] = [
            (Sound(.narrowBandNoise(centreHz: 1000, widthOctaves: 1.0 / 3)), .dBSPL(60), 60 - 100),
            (Sound(.noise(colour: .pink)), .dBSPL(60), 60 - StudyFixtures.broadbandDBSPL),
            (Sound(.tone(frequencyHz: 2000)), .dBHL(40), 40 + 9 - 104),
            (Sound(.tone(frequencyHz: 2000)), .dBFS(-30), -30),
        ]
        for (i, (sound, level, expectedDBFS)) in cases.enumerated() {
            let request = Self.request(sound)
            let resolved = try Self.resolver().resolve(level, of: request, for: patient, ears: .both)
            let rms = try StudyFixtures.writtenRMSDBFS(try StudyFixtures.render(request, at: resolved, name: "spl-\(i)"), channel: 0)
            #expect(abs(rms - expectedDBFS) < 0.1, "\(level) of \(sound.hearingReference)")
            #expect(abs(resolved.levelAsAsked(measuredRMSDBFS: rms) - level.value) < 0.1)
        }
    }
}

/// A LUFS level: resolved by a loudness pass to its RMS (so its dB SPL), which, rendered, measures the loudness
/// asked (libebur128 on the written file); one whose true peak would pass −1 dBTP is refused with the highest.
@Suite struct LoudnessLevelTests {
    @Test func pinkNoiseAtMinus23LUFSMeasuresSo() throws {
        let request = LevelResolverTests.request(Sound(.noise(colour: .pink)), layout: .stereo)
        let resolved = try LevelResolverTests.resolver().resolve(.lufs(-23), of: request, for: try LevelResolverTests.patient(), ears: .both)
        #expect(resolved.policy == .loudness(lufs: -23, truePeakCeilingDBTP: -1))
        #expect(abs(resolved.splDB - (resolved.rmsDBFS + StudyFixtures.broadbandDBSPL)) < 1e-9)
        var atRMS = request
        atRMS.level = resolved.rmsPolicy
        #expect(resolved.rmsPolicy == .rms(dBFS: resolved.rmsDBFS))
        let path = temporaryFolder("study-levels") + "/pink-lufs.wav"
        try Renderer.renderFile(atRMS, to: path, sampleFormat: .s24)
        let audio = try DecodedAudio(contentsOf: path)
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        try audio.buffer.withBlock { (block: AudioBlock) throws(ShadesError) in try meter.add(block) }
        let lufs = try #require(try meter.result().integratedLUFS)
        #expect(abs(lufs - (-23)) < 0.1)
    }

    @Test func aLoudnessWhosePeakPassesTheCeilingIsRefused() throws {
        let message = try LevelRefusalTests.refusal(.lufs(-2), Sound(.noise(colour: .white)), ceiling: 140)
        #expect(message.hasPrefix("patient P01, white beta=0 distribution=gaussian: -2 LUFS is "))
        #expect(message.contains("would put the true peak at +"))
        #expect(message.contains("dBTP (limit -1 dBTP); the highest possible is -"))
        let highest = try #require(Double(message.split(separator: "the highest possible is ")[1].split(separator: " ")[0]))
        #expect(highest < -8 && highest > -20)
        let request = LevelResolverTests.request(Sound(.noise(colour: .white)))
        _ = try LevelResolverTests.resolver(ceiling: 140).resolve(.lufs(highest), of: request, for: try LevelResolverTests.patient(), ears: .both)
    }
}

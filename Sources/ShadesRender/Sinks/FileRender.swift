import Dispatch
import ShadesPlatform
import ShadesDSP
import ShadesIO

/// What a file render did.
public struct FileRenderReport: Sendable {
    /// Linear gain applied to each signal so its RMS is the asked level.
    package let gains: [Float]
    /// RMS of each sounding channel's sustained sound, dBFS: the asked level, lowered by a modulation that
    /// keeps the peak instead of the RMS (nil under a true-peak ceiling).
    public let rmsDBFS: Double?
    /// Largest |sample| after the gain (linear, full scale 1.0); under a ceiling, the true peak.
    package let peak: Double
    /// True peak after the gain, dBTP, when the policy measured it (a ceiling).
    public let truePeakDBTP: Double?
    /// Frames written.
    public let frames: Int
    /// The level of the samples in the file (quantisation included), measured as they were written.
    package let written: WrittenLevel
    package let renderedFrequencyHz: Double?
    public let notes: [String]
    public var peakDBFS: Double { Decibels.fromAmplitude(peak) }
}

extension Renderer {
    /// Largest difference, in dB, between a file's RMS and the asked level: a one-pass file further off is
    /// written again at the measured gain. Audiometric calibration allows ±3 dB and the catalogue's loudness
    /// ±0.1 LU; no listener or study needs the third decimal (CHANGELOG 0.2.0).
    package static let levelToleranceDB = 0.02

    /// What writing a file costs, in measuring passes (rendering the sound once without writing it), and
    /// what forecasting a coloured noise's power costs (``NoisePowerForecast``). `perf record` of `render
    /// brown --duration 10m` (Intel Xeon family 6 model 207, AVX-512 kernels, session 47): the noise
    /// generator and filters 53 %, the rest of the write 31 % (quantiser, interleaving, the file), the
    /// forecast 1.8 % (it draws one value per 32 samples since `BlockSummedWhiteNoise`; 16 % before).
    static let writeCost = 1.6
    static let forecastCost = 0.035

    /// The chance that each of `signals` independent streams, their levels scattering by `scatterDB` (one
    /// standard deviation, dB), lands within ``levelToleranceDB``.
    package static func landingOdds(scatterDB: Double, signals: Int) -> Double {
        guard scatterDB > 0 else { return 1 }
        return pow(erf(levelToleranceDB / (scatterDB * 2.0.squareRoot())), Double(signals))
    }

    /// Renders `request` to `path` (WAV or FLAC by extension) in `sampleFormat` through a `FileSink`,
    /// streaming in bounded memory, at the gains its ``LevelPolicy`` chooses (`LevelPolicy.gains(for:format:)`):
    /// an RMS level within `levelToleranceDB` (Float before quantisation), refused when it would clip,
    /// naming the highest level that fits; or a file's own level under a true-peak ceiling. The file appears
    /// only when complete, with the parameters in its comment tag.
    ///
    /// - A file played to its end: `FileSoundPasses` (decoded, resampled and notched once, kept, written).
    /// - Streams at the asked level in expectation (noise, narrow-band noise, modulated or not) are written
    ///   in one pass and measured while written when that is expected to cost less than measuring first
    ///   (`onePassGains(_:)`); a render that lands further off is written again at the measured gain.
    ///   Over 10 minutes at 48 kHz white noise scatters by 0.0011 dB, pink by 0.007, AM pink by 0.01,
    ///   half an octave of narrow-band noise at 4 kHz by 0.005: one pass at the asked level. Brown noise
    ///   scatters by 0.03 dB; its power is forecast (`NoisePowerForecast`, to 0.0008 dB) and it is written
    ///   once at the forecast gain.
    /// - Everything else takes two passes: measure, then write at the exact gain (tones and loops are
    ///   measured without rendering and written once).
    @discardableResult
    public static func renderFile(_ request: RenderRequest, to path: String,
                                  sampleFormat: SampleFormat) throws(ShadesError) -> FileRenderReport {
        _ = try AudioFileFormat(container: try Container(path: path), sampleFormat: sampleFormat)
        let graph = try SoundGraph(request)
        let comment = Self.comment(for: request, renderedFrequencyHz: graph.renderedFrequencyHz,
                                   renderedModulationHz: graph.renderedModulationHz, format: sampleFormat)
        return try renderFile(graph, to: path, sampleFormat: sampleFormat, ditherSeed: request.resolvedSeed,
                              keepsFileSound: request.pulses == nil && request.fades == nil) { _ in comment }
    }

    /// Renders `graph` to `path` as ``renderFile(_:to:sampleFormat:)`` does, its comment tag from the gains
    /// chosen, its dither from `ditherSeed`. A file played to its end is kept between its passes when
    /// `keepsFileSound` (its measured sound is the one written: no pulses or fades under an RMS level).
    package static func renderFile(_ graph: SoundGraph, to path: String, sampleFormat: SampleFormat, ditherSeed: UInt64,
                                   keepsFileSound: Bool = true,
                                   comment: (LevelGains) -> String) throws(ShadesError) -> FileRenderReport {
        if graph.level.measurement == .loudness {
            throw .usage("a loudness target is the catalogue's (it measures the rendered sound with libebur128); render takes an RMS level or a true-peak ceiling")
        }
        if case .rms(let level) = graph.level { try LevelPolicy.refuseBelowFloor(levelDBFS: level, format: sampleFormat) }
        func sink(_ gains: LevelGains) throws(ShadesError) -> FileSink {
            try FileSink(path: path, sampleFormat: sampleFormat, sampleRate: Int(graph.sampleRate), channelMap: graph.channelMap,
                         ditherKeys: (0..<graph.signalCount).map { SeedStream.dither.key(seed: ditherSeed, channel: $0) },
                         comment: comment(gains), chunkFrames: graph.layout == nil ? FileChain.blockFrames : FileSink.defaultChunkFrames)
        }
        func report(_ chosen: LevelGains, frames: Int, written: WrittenLevel) -> FileRenderReport {
            let rms = graph.level.rmsDBFS.map { $0 + Decibels.fromAmplitude(graph.levelRatio) }
            return FileRenderReport(gains: chosen.gains, rmsDBFS: rms, peak: chosen.peak, truePeakDBTP: chosen.truePeakDBTP,
                                    frames: frames, written: written, renderedFrequencyHz: graph.renderedFrequencyHz, notes: graph.notes)
        }

        if graph.playsFileToEnd && (keepsFileSound || graph.level.measurement == .truePeak) {
            let passes = FileSoundPasses(graph)
            let chosen = try graph.level.gains(for: try passes.measureForLevel(), format: sampleFormat)
            let written = try passes.write(to: try sink(chosen), gains: chosen.gains)
            return report(chosen, frames: passes.frames, written: written)
        }
        let onePass = graph.level.measurement == .sustainedRMS && graph.knownMeasurements == nil ? onePassGains(graph) : nil
        let signals = SourceGroups(channelCounts: graph.groupChannelCounts, make: graph.makeGroup)
        guard let predicted = onePass else {
            let (measured, frames) = graph.measureForLevel()
            if let failure = graph.failures.error { throw failure }
            let chosen = try graph.level.gains(for: measured, format: sampleFormat)
            let written = try sink(chosen).write(signals, frames: frames, gains: chosen.gains)
            if let failure = graph.failures.error { throw failure }
            return report(chosen, frames: frames, written: written)
        }
        var chosen = LevelGains(gains: predicted, peak: 0, truePeakDBTP: nil)
        let written = try sink(chosen).create { (writer: FileSink.Writer) throws(ShadesError) -> WrittenLevel in
            let first = try writer.write(signals, frames: graph.frames, gains: predicted,
                                         meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: graph.signalCount))
            let measured = first.meters!
            let exact = try graph.level.gains(for: .sustained(graph.sustained(measured, frames: graph.frames)), format: sampleFormat)
            let peakAsWritten = zip(measured, predicted).map { Double($0.peak) * Double($1) }.max() ?? 0
            let offDB = zip(predicted, exact.gains).map { abs(Decibels.fromAmplitude(Double($0) / Double($1))) }.max() ?? 0
            if offDB <= levelToleranceDB && peakAsWritten <= sampleFormat.clipLimit {
                chosen = LevelGains(gains: predicted, peak: peakAsWritten, truePeakDBTP: nil)
                return first.written
            }
            chosen = exact
            return try writer.write(signals, frames: graph.frames, gains: exact.gains, meters: [SignalMeasurement]?.none).written
        }
        return report(chosen, frames: graph.frames, written: written)
    }

    /// The gains to write a stream at in one pass, or nil when measuring it first is expected to cost less.
    /// Expected costs, in measuring passes: measure then write, 1 + ``writeCost``; one pass at the asked
    /// level, ``writeCost`` × (2 − the odds of landing within ``levelToleranceDB``), a miss being written
    /// twice; a forecast, then one pass at the forecast gains, ``forecastCost`` + ``writeCost`` × (2 − its
    /// odds). The stream's level is the asked one times the modulation's ratio, in expectation or as
    /// forecast.
    static func onePassGains(_ graph: SoundGraph) -> [Float]? {
        guard let scatterDB = graph.levelScatterDB else { return nil }
        let signals = graph.signalCount
        let measureFirst = 1 + writeCost
        let atAskedLevel = writeCost * (2 - landingOdds(scatterDB: scatterDB, signals: signals))
        let expected = [Float](repeating: Float(graph.levelRatio), count: signals)
        // A forecast costs at least `forecastCost + writeCost` (certain to land): skip designing it when one
        // pass at the asked level costs no more.
        if let powerForecast = graph.powerForecast, atAskedLevel > forecastCost + writeCost {
            let forecast = powerForecast.forecast()
            let odds = landingOdds(scatterDB: Decibels.fromPower(1 + forecast.residualScatter), signals: signals)
            if forecastCost + writeCost * (2 - odds) < min(atAskedLevel, measureFirst) {
                let powers = ResultSlots<Double>(count: signals)
                DispatchQueue.concurrentPerform(iterations: signals) { s in
                    powers[s] = forecast.relativePower(key: powerForecast.key(s))
                }
                return powers.values.map { Float(graph.levelRatio / $0.squareRoot()) }
            }
        }
        return atAskedLevel < measureFirst ? expected : nil
    }
}

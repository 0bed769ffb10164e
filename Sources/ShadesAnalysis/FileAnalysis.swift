import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesPlatform

/// What `shades analyze` measures beyond the defaults.
public struct AnalysisOptions: Sendable {
    /// The colour the file should have: the report gives the largest band deviation from its line.
    public var expectedColour: NoiseColour?
    /// The unprocessed input, for a notch check of this file against it.
    public var referencePath: String?
    /// The notch band to check (with a reference); nil finds the band from the transfer function.
    public var notch: OctaveBand?
    /// Microphone calibration, for ambient levels in dB SPL.
    public var calibration: SPLCalibration?
    /// Listening time in seconds, for a daily noise dose.
    public var listeningSeconds: Double?
    /// Measure the loop seam even when the file's comment does not say it is a loop (`loop=true`).
    public var loop = false
    /// Frames read per block.
    package var blockFrames = 65_536

    public init(expectedColour: NoiseColour? = nil, referencePath: String? = nil, notch: OctaveBand? = nil,
                calibration: SPLCalibration? = nil, listeningSeconds: Double? = nil, loop: Bool = false) {
        self.loop = loop
        self.expectedColour = expectedColour
        self.referencePath = referencePath
        self.notch = notch
        self.calibration = calibration
        self.listeningSeconds = listeningSeconds
    }
}

/// Modulation of the envelope (band-limited Hilbert envelope of the first minutes of channel 0).
public struct ModulationReport: Encodable, Sendable, Equatable {
    /// Rate in Hz.
    public let rateHz: Double
    /// Depth m in [0, 1].
    public let depth: Double
    /// Phase of the modulation at the first frame, radians.
    package let phaseRadians: Double
    /// Seconds analysed.
    package let analysedSeconds: Double
}

/// Everything `shades analyze` reports about one file (its JSON form).
public struct FileAnalysisReport: Encodable, Sendable {
    package let file: String
    package let container: String
    public let sampleRate: Double
    public let channels: Int
    /// Frames measured: all those decoded.
    package let frames: Int
    public let durationSeconds: Double
    public let comment: String?
    /// Set when the frames read are not all the file announces or holds (`AudioFileInput.lengthWarning`,
    /// e.g. a truncated WAV): the measurements cover the frames read.
    public let lengthWarning: String?
    /// RMS, sample peak, clipped samples, DC and inter-channel correlation.
    public let levels: LevelReport
    /// Integrated loudness and loudness range (libebur128), true peaks (`TruePeakMeter`) and sample peaks.
    public let loudness: LoudnessReport
    /// Third-octave bands and slope of the channels' average spectrum (nil for a silent file).
    public let spectrum: SpectrumReport?
    /// Whether the file is a loop: its comment says `loop=true` (a Shades render or catalogue asset), or
    /// the analysis was told so (``AnalysisOptions/loop``).
    public let isLoop: Bool
    /// The loop seam of each channel; empty unless ``isLoop`` (a file that is not a loop has no seam).
    public let seams: [SeamReport]
    /// Frequency and THD+N of channel 0 when it is a tone (THD+N below −20 dB), else nil.
    package let tone: ToneEstimate?
    /// The same for every channel, from its first `ToneAnalysis.maximumSeconds` (a sound per ear: a tone in
    /// one, noise in the other; binaural beats: a tone in each).
    public let channelTones: [ToneEstimate?]
    /// Envelope modulation of channel 0 when there is some: depth ≥ 2 %, significant and sinusoidal
    /// (`ModulationLineTest`: not an envelope's random fluctuation, nor music's rhythm), else nil.
    public let modulation: ModulationReport?
    /// A-weighted LAeq and LAFmax, with SPL and noise dose when calibrated.
    public let ambient: AmbientReport
    /// Notch check of channel 0 against the reference, when one was given.
    public let notch: NotchCheckReport?
    /// The reference's own sample rate, Hz, when one was given (resampled to ``sampleRate`` if it differs).
    package let referenceSampleRate: Double?
}

/// A finished analysis: the report and what plots need.
public struct FileAnalysis: Sendable {
    public let report: FileAnalysisReport
    /// The channels' average power spectral density (nil for a silent file).
    package let spectrum: PowerSpectrum?

    /// Seconds of channel 0 kept for the tone and modulation estimates.
    package static let headSeconds = 180.0
    /// Depth below which no modulation is reported.
    package static let modulationThreshold = 0.02
    /// THD+N below which channel 0 counts as a tone, in dB.
    package static let toneThresholdDB = -20.0

    /// Reads `path` once, block by block (memory stays bounded for any length), and measures it.
    public static func analyze(path: String, options: AnalysisOptions = AnalysisOptions()) throws(ShadesError) -> FileAnalysis {
        let input = try AudioFileInput(path: path)
        // The reference at the file's rate: resampled (libsamplerate, best quality) when its own differs.
        let reference: AudioFileSource?
        if let referencePath = options.referencePath {
            do throws(ShadesError) {
                reference = try AudioFileSource(path: referencePath, sampleRate: Double(input.sampleRate),
                                                blockFrames: options.blockFrames)
            } catch { throw .input("reference: " + error.description) }
        } else {
            reference = nil
        }
        let rate = Double(input.sampleRate)
        let channels = input.channelCount
        let state = try AnalysisState(input: input, options: options)
        state.referenceSampleRate = reference?.inputSampleRate

        let block = AudioBuffer(channelCount: channels, frameCapacity: options.blockFrames, zeroed: false)
        let referenceBlock = reference.map { AudioBuffer(channelCount: $0.channelCount, frameCapacity: options.blockFrames, zeroed: false) }
        var referenceRendered = 0
        while true {
            let frames: Int = try block.withBlock { (b: AudioBlock) throws(ShadesError) in try input.read(into: b) }
            if frames == 0 { break }
            var referenceFrames = 0
            if let reference, let referenceBlock {
                referenceBlock.withBlock(frames: 0..<frames) { reference.render(into: $0) }
                if let failure = reference.failure { throw .input("reference: " + failure.description) }
                // Past its end the source renders silence: only the frames it has count.
                referenceFrames = max(0, min(frames, (reference.frameCount ?? .max) - referenceRendered))
                referenceRendered += frames
            }
            try state.add(block: block, frames: frames, reference: referenceBlock, referenceFrames: referenceFrames)
        }
        return try state.finish(path: path, input: input, sampleRate: rate)
    }
}

/// The accumulators of one analysis, fed block by block, on two threads per block.
final class AnalysisState: @unchecked Sendable {
    let options: AnalysisOptions
    let sampleRate: Double
    let channels: Int
    var levels: LevelStatistics
    let loudness: LoudnessMeter
    var ambient: AmbientLevel
    var spectra: [SpectrumAccumulator]
    var seams: [SeamAccumulator]
    /// True peak per channel: libebur128's interpolator in SIMD (the library's own took 1.3 s of the
    /// 1.9 s it needed for 10 minutes of stereo; integrated loudness and range stay libebur128's).
    var truePeaks: [TruePeakMeter]
    var notch: NotchCheckAccumulator?
    /// The first `headSeconds` of channel 0.
    var head: [Float] = []
    let headCapacity: Int
    /// The first seconds of channels 1 … for their tones.
    var channelHeads: [[Float]] = []
    let channelHeadCapacity: Int
    var loudnessError: ShadesError?
    var referenceSampleRate: Double?

    init(input: AudioFileInput, options: AnalysisOptions) throws(ShadesError) {
        self.options = options
        sampleRate = Double(input.sampleRate)
        channels = input.channelCount
        levels = LevelStatistics(channelCount: channels)
        do throws(ShadesError) {
            loudness = try LoudnessMeter(channelCount: channels, sampleRate: sampleRate, truePeak: false)
        } catch { throw .input("cannot measure loudness of \(input.path): \(error.description)") }
        do throws(ShadesError) {
            ambient = try AmbientLevel(sampleRate: sampleRate, channelCount: channels)
            let spectrum = try SpectrumAccumulator(sampleRate: sampleRate)
            spectra = Array(repeating: spectrum, count: channels)
            seams = Array(repeating: SeamAccumulator(), count: channels)
            truePeaks = Array(repeating: TruePeakMeter(sampleRate: sampleRate), count: channels)
            if options.referencePath != nil {
                // Segments long enough to resolve the notch's edges (a 65,536-sample segment blurs a 500 Hz
                // notch's edges to −90 dB): about 2,000 periods of the lower edge, and at least a second
                // (bins under 1 Hz: a shorter segment smears a steep edge over its neighbours, and the
                // smeared power reads as output noise where the edge is), up to 2^20 samples.
                let rate = Double(input.sampleRate)
                let wanted = max(rate, options.notch.map { 2_000 * rate / $0.lowerEdgeHz } ?? 0)
                let segment = max(SpectrumAccumulator.segmentLength(sampleRate: rate),
                                  min(1 << 20, 1 << Int(log2(wanted).rounded(.up))))
                notch = try NotchCheckAccumulator(sampleRate: sampleRate, band: options.notch, segmentLength: segment)
            }
        } catch {
            // A band the file's rate cannot carry is the caller's --notch, not the file's fault.
            if error.parameter == .bandCentre || error.parameter == .bandWidth { throw error }
            throw .input("cannot analyse \(input.path): \(error.description)")
        }
        headCapacity = Int(FileAnalysis.headSeconds * sampleRate)
        head.reserveCapacity(min(headCapacity, input.frameCount))
        channelHeadCapacity = Int(ToneAnalysis.maximumSeconds * sampleRate)
        channelHeads = Array(repeating: [], count: max(0, channels - 1))
    }

    func add(block: AudioBuffer, frames: Int, reference: AudioBuffer?, referenceFrames: Int) throws(ShadesError) {
        // Read-only views of this block, used by both tasks until they finish below.
        nonisolated(unsafe) let planes = (0..<channels).map { c in block.withChannel(c) { UnsafeBufferPointer(rebasing: $0[0..<frames]) } }
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            // Balanced by measurement: libebur128 (0.5 s per 10 min of stereo) on one thread; spectra,
            // seams, true peaks and A-weighting (0.5 s together) on the other.
            if task == 0 {
                levels.add(planes)
                do throws(ShadesError) { try loudness.add(planes) } catch { loudnessError = error }
            } else {
                ambient.add(planes)
                for c in 0..<channels {
                    spectra[c].add(planes[c])
                    seams[c].add(planes[c])
                    truePeaks[c].add(planes[c])
                }
            }
        }
        if let loudnessError { throw .runtime("cannot measure loudness: \(loudnessError.description)") }
        if head.count < headCapacity {
            head.append(contentsOf: planes[0].prefix(headCapacity - head.count))
        }
        for c in channelHeads.indices where channelHeads[c].count < channelHeadCapacity {
            channelHeads[c].append(contentsOf: planes[c + 1].prefix(channelHeadCapacity - channelHeads[c].count))
        }
        if let reference, referenceFrames > 0 {
            let n = min(frames, referenceFrames)
            reference.withChannel(0) { r in notch?.add(reference: UnsafeBufferPointer(rebasing: r[0..<n]),
                                                        output: UnsafeBufferPointer(rebasing: planes[0][0..<n])) }
        }
    }

    func finish(path: String, input: AudioFileInput, sampleRate rate: Double) throws(ShadesError) -> FileAnalysis {
        let levelReport = levels.report()
        let measured: LoudnessReport
        do throws(ShadesError) { measured = try loudness.result() } catch {
            throw .runtime("cannot measure loudness of \(path): \(error.description)")
        }
        let truePeakPerChannel: [Double?] = truePeaks.map { $0.peak > 0 ? $0.peakDBTP : nil }
        let loudnessReport = LoudnessReport(
            channelCount: measured.channelCount, sampleRate: measured.sampleRate, durationSeconds: measured.durationSeconds,
            dualMono: measured.dualMono, integratedLUFS: measured.integratedLUFS, loudnessRangeLU: measured.loudnessRangeLU,
            truePeakDBTP: truePeakPerChannel.compactMap { $0 }.max(), truePeakDBTPPerChannel: truePeakPerChannel,
            samplePeakDBFS: measured.samplePeakDBFS, samplePeakDBFSPerChannel: measured.samplePeakDBFSPerChannel)
        let silent = levelReport.channels.allSatisfy { ($0.rmsDBFS ?? -.infinity) == -.infinity }

        var spectrum: PowerSpectrum?
        var spectrumReport: SpectrumReport?
        var spectrumProblem = "is silent"
        if !silent {
            do throws(ShadesError) {
                spectrum = PowerSpectrum.average(try spectra.map { (s: SpectrumAccumulator) throws(ShadesError) in try s.result() })
                if let spectrum { spectrumReport = try SpectrumReport(spectrum: spectrum, sampleRate: rate, expected: options.expectedColour) }
            } catch { spectrumProblem = "has no spectrum (\(error.description))" }
        }
        if options.expectedColour != nil && spectrumReport == nil {
            throw .runtime("\(path) \(spectrumProblem): there is nothing to compare with the expected colour")
        }
        let isLoop = options.loop || (input.comment?.split(separator: " ").contains("loop=true") ?? false)
        var seamReports: [SeamReport] = []
        for s in seams where isLoop {
            do throws(ShadesError) { seamReports.append(try s.result()) } catch {
                throw .runtime("cannot check the loop seam of \(path): \(error.description)")
            }
        }

        // Tone and modulation of channel 0, from its first minutes.
        var tone: ToneEstimate?
        var modulation: ModulationReport?
        if !silent {
            head.withUnsafeBufferPointer { samples in
                if let estimate = try? ToneAnalysis.estimate(samples, sampleRate: rate), estimate.thdPlusNoiseDB <= FileAnalysis.toneThresholdDB {
                    tone = estimate
                }
                var carrierBand: ClosedRange<Double>?
                if let tone {
                    carrierBand = max(1, tone.frequencyHz / 2)...min(rate * 0.45, tone.frequencyHz * 2)
                }
                if samples.count >= Int(rate),
                   let estimate = try? ModulationAnalysis.estimate(samples, sampleRate: rate, carrierBandHz: carrierBand),
                   estimate.depth >= FileAnalysis.modulationThreshold, estimate.isSignificant {
                    modulation = ModulationReport(rateHz: estimate.rateHz, depth: estimate.depth, phaseRadians: estimate.phase,
                                                  analysedSeconds: Double(samples.count) / rate)
                }
            }
        }
        var channelTones: [ToneEstimate?] = [tone]
        for samples in channelHeads {
            let estimate = silent ? nil : samples.withUnsafeBufferPointer { try? ToneAnalysis.estimate($0, sampleRate: rate) }
            channelTones.append(estimate.flatMap { $0.thdPlusNoiseDB <= FileAnalysis.toneThresholdDB ? $0 : nil })
        }
        var notchReport: NotchCheckReport?
        if let notch {
            do throws(ShadesError) { notchReport = try notch.result() } catch {
                throw .runtime("cannot check the notch of \(path) against \(options.referencePath ?? "its reference"): \(error.description)")
            }
        }
        let ambientReport = ambient.report(calibration: options.calibration, listeningSeconds: options.listeningSeconds)
        let report = FileAnalysisReport(
            file: path, container: input.containerName, sampleRate: rate, channels: channels, frames: input.framesRead,
            durationSeconds: Double(input.framesRead) / rate, comment: input.comment, lengthWarning: input.lengthWarning,
            levels: levelReport,
            loudness: loudnessReport, spectrum: spectrumReport, isLoop: isLoop, seams: seamReports, tone: tone,
            channelTones: channelTones, modulation: modulation, ambient: ambientReport, notch: notchReport,
            referenceSampleRate: referenceSampleRate)
        return FileAnalysis(report: report, spectrum: spectrum)
    }
}

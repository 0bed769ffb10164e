import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

/// What one written catalogue file measures, read back block by block.
struct FileMeasurement: Sendable {
    let frames: Int
    let sampleRate: Int
    let channels: Int
    /// Integrated loudness in LUFS (libebur128); nil for silence.
    let integratedLUFS: Double?
    /// Largest true peak over the channels in dBTP (`TruePeakMeter`); nil for silence.
    let truePeakDBTP: Double?
    /// Seam report per channel (only when asked).
    let seams: [SeamReport]
    /// The channels' average power spectral density (only when asked and not silent).
    let spectrum: PowerSpectrum?

    /// Reads `path` once and measures loudness and true peak, and optionally seams and spectrum.
    static func measure(path: String, seams wantSeams: Bool, spectrum wantSpectrum: Bool) throws(ShadesError) -> FileMeasurement {
        let input = try AudioFileInput(path: path)
        let channels = input.channelCount, rate = Double(input.sampleRate)
        var meter: LoudnessAndPeak
        do throws(ShadesError) {
            meter = try LoudnessAndPeak(channelCount: channels, sampleRate: rate)
        } catch { throw .runtime("cannot measure \(path): \(error.description)") }
        var seams = wantSeams ? Array(repeating: SeamAccumulator(), count: channels) : []
        var spectra: [SpectrumAccumulator] = []
        if wantSpectrum {
            do throws(ShadesError) { spectra = Array(repeating: try SpectrumAccumulator(sampleRate: rate), count: channels) } catch {
                throw .runtime("cannot measure the spectrum of \(path): \(error.description)")
            }
        }
        let block = AudioBuffer(channelCount: channels, frameCapacity: 65_536, zeroed: false)
        while true {
            let frames: Int = try block.withBlock { (b: AudioBlock) throws(ShadesError) in try input.read(into: b) }
            if frames == 0 { break }
            let planes = (0..<channels).map { c in block.withChannel(c) { UnsafeBufferPointer(rebasing: $0[0..<frames]) } }
            do throws(ShadesError) { try meter.add(planes) } catch { throw .runtime("cannot measure \(path): \(error.description)") }
            for c in 0..<seams.count { seams[c].add(planes[c]) }
            for c in 0..<spectra.count { spectra[c].add(planes[c]) }
        }
        let loudness: (integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?)
        do throws(ShadesError) { loudness = try meter.result() } catch { throw .runtime("cannot measure \(path): \(error.description)") }
        var seamReports: [SeamReport] = []
        var spectrum: PowerSpectrum?
        do throws(ShadesError) {
            seamReports = try seams.map { (s: SeamAccumulator) throws(ShadesError) in try s.result() }
            if wantSpectrum, loudness.integratedLUFS != nil {
                spectrum = PowerSpectrum.average(try spectra.map { (s: SpectrumAccumulator) throws(ShadesError) in try s.result() })
            }
        } catch { throw .runtime("cannot measure \(path): \(error.description)") }
        return FileMeasurement(frames: input.framesRead, sampleRate: input.sampleRate, channels: channels,
                               integratedLUFS: loudness.integratedLUFS, truePeakDBTP: loudness.truePeakDBTP,
                               seams: seamReports, spectrum: spectrum)
    }

    /// What is wrong with this file against its target (empty when it meets every limit).
    func problems(targetLUFS: Double, loop: Bool) -> [String] {
        var problems: [String] = []
        if let lufs = integratedLUFS {
            if abs(lufs - targetLUFS) > CatalogueLimits.loudnessToleranceLU {
                problems.append("integrated loudness \(String(format: lufs, digits: 2)) LUFS is not within ±\(String(format: CatalogueLimits.loudnessToleranceLU, digits: 1)) LU of \(String(format: targetLUFS, digits: 1)) LUFS")
            }
        } else {
            problems.append("is silent (no integrated loudness)")
        }
        if let tp = truePeakDBTP, tp > CatalogueLimits.maximumTruePeakDBTP {
            problems.append("true peak \(String(format: tp, digits: 2)) dBTP is above \(String(format: CatalogueLimits.maximumTruePeakDBTP, digits: 1)) dBTP")
        }
        if loop {
            for (c, seam) in seams.enumerated() where !seam.isSeamless {
                problems.append("loop seam of channel \(c + 1) is audible (step at percentile \(String(format: seam.firstDifferencePercentile, digits: 2)), curvature at \(String(format: seam.secondDifferencePercentile, digits: 2)))")
            }
        }
        return problems
    }

    /// The spectrum as an inline SVG (no XML declaration), 480 × 300 px.
    func spectrumSVG() -> String? {
        guard let spectrum else { return nil }
        var plot = SpectrumPlot.spectrum(spectrum, title: "", sampleRate: Double(sampleRate))
        plot.size = (480, 300)
        return plot.svg(standalone: false)
    }
}

/// One sound built (or reused) into the new catalogue folder.
struct BuiltSound: Sendable {
    let sound: Manifest.Sound
    /// The spectrum SVG fragment for the page.
    let spectrumSVG: String
    /// Whether the file was taken from the previous build.
    let reused: Bool
}

enum AssetRenderer {
    /// Renders `asset` (music in two streaming passes, anything else in memory), sets its loudness, writes
    /// `folder/<id>.<ext>` atomically and verifies the written file.
    static func build(_ asset: CatalogueAsset, cacheKey: String, into folder: String) throws(ShadesError) -> BuiltSound {
        let id = asset.id
        let rendered = try render(asset)
        guard let measured = rendered.loudness.integratedLUFS, let truePeak = rendered.loudness.truePeakDBTP else {
            throw .asset(id: id, message: "is silent: there is no loudness to set")
        }
        let chosen: LevelGains
        do throws(ShadesError) {
            chosen = try asset.request.level.gains(for: .loudness(integratedLUFS: measured, truePeakDBTP: truePeak,
                                                                  samplePeakDBFS: rendered.loudness.samplePeakDBFS, signalCount: rendered.channels),
                                                   format: asset.sampleFormat)
        } catch {
            var refused = ShadesError.asset(id: id, message: error.message)
            (refused.parameter, refused.value) = (error.parameter, error.value)
            throw refused
        }
        // The request as written: its sound with the file's decoded length recorded, at the level the gain gave.
        var written = asset.request
        written.level = .rms(dBFS: RenderRequest.referenceLevelDBFS + chosen.gainDB)
        written.sound = asset.request.sound.mappingFiles { file in
            var recorded = file
            recorded.frames = rendered.decodedInputFrames ?? recorded.frames
            return recorded
        }
        let path = folder + "/" + asset.fileName
        let ditherKey = SeedStream.dither.key(seed: asset.request.resolvedSeed, channel: 0)
        let sink = try FileSink(path: path, sampleFormat: asset.sampleFormat, sampleRate: Int(asset.request.sampleRate),
                                channelMap: Array(0..<rendered.channels),
                                ditherKeys: (0..<rendered.channels).map { ditherKey &+ UInt64($0) },
                                comment: Renderer.comment(for: written, renderedFrequencyHz: rendered.renderedFrequencyHz,
                                                          format: asset.sampleFormat))
        try rendered.write(sink, chosen.gains)
        return try verify(asset, written: written, cacheKey: cacheKey, path: path)
    }

    /// A sound made and measured before its gain: its length, loudness, and how to write it at a gain.
    private struct Rendered {
        let frames: Int
        /// A music file's decoded frames at its own rate (nil for a sound made in memory).
        var decodedInputFrames: Int? = nil
        let channels: Int
        let renderedFrequencyHz: Double?
        let loudness: (integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?)
        /// Writes the sound into the sink at the gains (linear, one per channel).
        let write: (FileSink, [Float]) throws(ShadesError) -> Void
    }

    /// Music streams (pass 1 measures it, pass 2 writes it: memory independent of its length); every other
    /// sound is rendered into memory and measured there.
    private static func render(_ asset: CatalogueAsset) throws(ShadesError) -> Rendered {
        if let passes = try asset.fileSoundPasses() {
            var meter: LoudnessAndPeak
            do throws(ShadesError) { meter = try LoudnessAndPeak(channelCount: passes.channelCount, sampleRate: asset.request.sampleRate) } catch {
                throw .asset(id: asset.id, message: "cannot measure loudness: \(error.description)")
            }
            var meterFailure: ShadesError?
            do throws(ShadesError) {
                _ = try passes.measure(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: passes.channelCount)) { block in
                    guard meterFailure == nil else { return }
                    do throws(ShadesError) { try meter.add((0..<block.channelCount).map { UnsafeBufferPointer(block.channel($0)) }) } catch {
                        meterFailure = error
                    }
                }
                // A sound in the catalogue is all of its file.
                if let warning = passes.lengthWarning { throw .input(warning) }
            } catch { throw .asset(id: asset.id, message: error.description) }
            let loudness: (integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?)
            do throws(ShadesError) {
                if let meterFailure { throw meterFailure }
                loudness = try meter.result()
            } catch { throw .asset(id: asset.id, message: "cannot measure loudness: \(error.description)") }
            return Rendered(frames: passes.frames, decodedInputFrames: passes.decodedInputFrames, channels: passes.channelCount,
                            renderedFrequencyHz: passes.graph.renderedFrequencyHz, loudness: loudness) { (sink: FileSink, gains: [Float]) throws(ShadesError) in
                try passes.write(to: sink, gains: gains)
            }
        }
        let (buffer, renderedFrequencyHz) = try asset.renderBuffer()
        let rate = asset.request.sampleRate
        return Rendered(frames: buffer.frameCapacity, channels: buffer.channelCount, renderedFrequencyHz: renderedFrequencyHz,
                        loudness: try asset.measureLoudness(buffer)) { (sink: FileSink, gains: [Float]) throws(ShadesError) in
            try sink.write(SourceGroups([BufferSource(buffer: buffer, sampleRate: rate)]), frames: buffer.frameCapacity, gains: gains)
        }
    }

    /// Reads the written file back: loudness, true peak and seam must meet the limits; and hashes it.
    ///
    /// The hash and the measurement read the file (just written: in the page cache) on two threads at once:
    /// for the last song of a build they are all that is left to do, and the hash alone is a third of it.
    static func verify(_ asset: CatalogueAsset, written: RenderRequest, cacheKey: String, path: String) throws(ShadesError) -> BuiltSound {
        let hash = ResultSlots<String?>(count: 1)
        let measurement = ResultSlots<Result<FileMeasurement, ShadesError>>(count: 1)
        let loop = asset.request.loop
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 {
                hash[0] = SHA256.hex(ofFile: path)
            } else {
                measurement[0] = Result { () throws(ShadesError) in try FileMeasurement.measure(path: path, seams: loop, spectrum: true) }
            }
        }
        let measured = try measurement[0].get()
        if let problem = measured.problems(targetLUFS: asset.loudnessLUFS, loop: asset.request.loop).first {
            throw .asset(id: asset.id, message: "written file \(asset.fileName): \(problem)")
        }
        guard let sha = hash[0] else { throw .input("cannot read \(path) to hash it") }
        let sound = Manifest.Sound(
            id: asset.id, category: asset.category, titles: asset.titles, file: asset.fileName,
            durationSeconds: Double(measured.frames) / Double(measured.sampleRate), frames: measured.frames,
            sampleRate: measured.sampleRate, channels: measured.channels, container: asset.container,
            sampleFormat: asset.sampleFormat, loop: asset.request.loop, targetLoudnessLUFS: asset.loudnessLUFS,
            integratedLoudnessLUFS: measured.integratedLUFS ?? -.infinity, truePeakDBTP: measured.truePeakDBTP ?? -.infinity,
            sha256: sha, recipe: written.resolvedSound, levelGainDB: written.levelDBFS - RenderRequest.referenceLevelDBFS,
            frequencyHz: asset.frequencyHz, cacheKey: cacheKey)
        return BuiltSound(sound: sound, spectrumSVG: measured.spectrumSVG() ?? "", reused: false)
    }
}

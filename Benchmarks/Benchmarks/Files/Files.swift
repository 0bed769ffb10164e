// File benchmarks: `Renderer.renderFile`, the path `shades render` takes: render, measure, apply the
// exact gain, dither/quantise and write through libsndfile, for a 60 s stereo 48 kHz pink noise file,
// written to a temporary directory.

import Benchmark
import Foundation
import ShadesAnalysis
import ShadesBenchmarkSupport
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender

/// A scratch directory for the files, made before measuring starts and removed afterwards.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shades-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// One iteration = one `Renderer.renderFile` of `request` to `fileName` in `format`.
func renderFileBenchmark(_ fileName: String, _ format: SampleFormat, _ request: RenderRequest) {
    Benchmark("RenderFile-\(fileName)") { benchmark, scratch in
        let path = scratch.url.appendingPathComponent(fileName).path
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        do {
            try Renderer.renderFile(request, to: path, sampleFormat: format)
        } catch {
            benchmark.error("rendering \(fileName) failed: \(error)")
        }
        let elapsed = start.duration(to: clock.now)
        benchmark.stopMeasurement()
        try? FileManager.default.removeItem(atPath: path)
        ShadesBench.record(benchmark, frames: request.frameCount, channels: request.layout.outputChannelCount,
                           sampleRate: request.sampleRate, elapsed: elapsed)
    } setup: { () throws -> ScratchDirectory in
        try ScratchDirectory()
    }
}

/// One iteration = `shades analyze` of a 10-minute stereo 48 kHz s16 file (target: under 1 s). The file
/// is rendered in setup.
func analyzeBenchmark() {
    let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 600,
                                sampleRate: 48_000, layout: .stereo)
    Benchmark("Analyze-pink-10min-stereo-s16", configuration: .init(maxIterations: ShadesBench.quick ? 1 : 5)) { benchmark, scratch in
        let path = scratch.url.appendingPathComponent("analyze.wav").path
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        do {
            let analysis = try FileAnalysis.analyze(path: path, options: AnalysisOptions(expectedColour: .pink))
            blackHole(analysis.report.loudness.integratedLUFS)
        } catch {
            benchmark.error("analysing failed: \(error)")
        }
        let elapsed = start.duration(to: clock.now)
        benchmark.stopMeasurement()
        ShadesBench.record(benchmark, frames: request.frameCount, channels: 2, sampleRate: request.sampleRate, elapsed: elapsed)
    } setup: { () throws -> ScratchDirectory in
        let scratch = try ScratchDirectory()
        try Renderer.renderFile(request, to: scratch.url.appendingPathComponent("analyze.wav").path, sampleFormat: .s16)
        return scratch
    }
}

/// One iteration = `shades catalogue build` of the default presets (13 sounds of 60 s, stereo 48 kHz s16)
/// into an empty folder (target: at most 5 s on 2 cores), or into the folder of the previous build with
/// nothing changed (target: under 1 s).
func catalogueBenchmark(unchanged: Bool) {
    let presets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path
    Benchmark(unchanged ? "Catalogue-default-unchanged" : "Catalogue-default-from-scratch",
              configuration: .init(maxIterations: ShadesBench.quick ? 1 : 3)) { benchmark, scratch in
        let folder = scratch.url.appendingPathComponent("catalogue").path
        if !unchanged { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let documents = try PresetParser.loadCatalogue(folder: presets)
            let (assets, categories) = try PresetAssets.resolve(documents)
            benchmark.startMeasurement()
            let manifest = try CatalogueBuilder.build(assets: assets, categories: categories, into: folder)
            benchmark.stopMeasurement()
            blackHole(manifest.sounds.count)
        } catch {
            benchmark.error("catalogue build failed: \(error)")
        }
    } setup: { () throws -> ScratchDirectory in
        let scratch = try ScratchDirectory()
        if unchanged {
            let documents = try PresetParser.loadCatalogue(folder: presets)
            let (assets, categories) = try PresetAssets.resolve(documents)
            try CatalogueBuilder.build(assets: assets, categories: categories, into: scratch.url.appendingPathComponent("catalogue").path)
        }
        return scratch
    }
}

/// One iteration = 60 s of stereo pink noise at `inputRate` (a float WAV written in setup) decoded and
/// resampled to 48 kHz by an `AudioFileSource` at `quality`, rendered to its end: the decoding and
/// resampling stage of `shades notch --rate` and of the catalogue's music. `best` is the rational FFT
/// resampler; `medium` and `fastest` are libsamplerate's converters (its best one, no longer used for
/// whole rates, converted about 1.1 M frames/s per channel here).
func resampleBenchmark(inputRate: Int, quality: Resampler.Quality) {
    let seconds = 60
    Benchmark("Resample-\(inputRate)-to-48000-60s-stereo-\(quality.rawValue)",
              configuration: .init(maxIterations: ShadesBench.quick ? 1 : 10)) { benchmark, scratch in
        let path = scratch.url.appendingPathComponent("input.wav").path
        let clock = ContinuousClock()
        var frames = 0
        benchmark.startMeasurement()
        let start = clock.now
        do {
            let source = try AudioFileSource(path: path, sampleRate: 48_000, quality: quality)
            let block = AudioBuffer(channelCount: source.channelCount, frameCapacity: 16_384)
            while source.frameCount == nil {
                block.withBlock { source.render(into: $0) }
                frames += 16_384
            }
            frames = source.frameCount ?? frames
        } catch {
            benchmark.error("resampling failed: \(error)")
        }
        let elapsed = start.duration(to: clock.now)
        benchmark.stopMeasurement()
        ShadesBench.record(benchmark, frames: frames, channels: 2, sampleRate: 48_000, elapsed: elapsed)
    } setup: { () throws -> ScratchDirectory in
        let scratch = try ScratchDirectory()
        let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: Double(seconds),
                                    sampleRate: Double(inputRate), layout: .stereo)
        try Renderer.renderFile(request, to: scratch.url.appendingPathComponent("input.wav").path, sampleFormat: .f32)
        return scratch
    }
}

let benchmarks: @Sendable () -> Void = {
    ShadesBench.configureSuite()

    let pink60s = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 60,
                                sampleRate: 48_000, layout: .stereo)
    renderFileBenchmark("pink-60s-stereo-s16.wav", .s16, pink60s)
    renderFileBenchmark("pink-60s-stereo-f32.wav", .f32, pink60s)
    renderFileBenchmark("pink-60s-stereo-s16.flac", .s16, pink60s)
    analyzeBenchmark()
    catalogueBenchmark(unchanged: false)
    catalogueBenchmark(unchanged: true)
    for rate in [22_050, 44_100] { resampleBenchmark(inputRate: rate, quality: .best) }
    // libsamplerate's converters take seconds each: not in CI's quick run.
    if !ShadesBench.quick {
        for quality in [Resampler.Quality.medium, .fastest] { resampleBenchmark(inputRate: 22_050, quality: quality) }
    }
}

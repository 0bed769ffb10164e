import ShadesDSP
import ShadesIO

extension Renderer {
    /// The highest RMS level, dBFS, at which `request`'s sound fits in `format` without a sample clipping,
    /// measured as ``renderFile(_:to:sampleFormat:)`` measures it before choosing the gain (tones and loops
    /// exactly without rendering, other sounds by a measuring pass); nil for a silent sound. `request`'s level
    /// must be an RMS level (``LevelPolicy/rms(dBFS:)``).
    package static func highestRMSLevelDBFS(_ request: RenderRequest, format: SampleFormat) throws(ShadesError) -> Double? {
        guard let level = request.level.rmsDBFS else {
            throw .usage("the clipping limit is measured for an RMS level (dBFS), not \(request.level.summary)")
        }
        let graph = try SoundGraph(request)
        let measured: LevelMeasurement
        if graph.playsFileToEnd {
            measured = try FileSoundPasses(graph).measureForLevel()
        } else {
            measured = graph.measureForLevel().measured
            if let failure = graph.failures.error { throw failure }
        }
        guard case .sustained(let sustained) = measured else { return nil }
        let peak = sustained.gainsAndPeak(levelDBFS: level).peak
        guard peak > 0 else { return nil }
        return level - Decibels.fromAmplitude(peak / format.clipLimit)
    }
}

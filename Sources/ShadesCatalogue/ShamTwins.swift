import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

extension RenderRequest {
    /// This request and its sham twin at one integrated loudness (``shamTwins(loudness:)``), each measured
    /// with libebur128 as rendered at its level (``integratedLoudness(format:)``): twins within 0.01 LU.
    package func loudnessMatchedShamTwins(format: SampleFormat = .s16) throws(ShadesError) -> (active: RenderRequest, sham: RenderRequest) {
        try shamTwins { (request: RenderRequest) throws(ShadesError) in try request.integratedLoudness(format: format) }
    }

    /// Integrated loudness (BS.1770, libebur128) of this request rendered in memory at the gain its level
    /// policy chooses, LUFS: an RMS level's gains; a true-peak ceiling's (the file's own level, lowered to keep
    /// its true peak under the ceiling as `format` holds it); a loudness target is its own. Refused for silence.
    package func integratedLoudness(format: SampleFormat) throws(ShadesError) -> Double {
        if case .loudness(let lufs, _) = level { return lufs }
        let rendered = try Renderer.render(self)
        let buffer = rendered.buffer
        let gains: [Float]
        if case .rms = level { gains = rendered.gains } else { gains = Array(repeating: 1, count: buffer.channelCount) }
        var meter = try LoudnessAndPeak(channelCount: buffer.channelCount, sampleRate: sampleRate)
        let scaled = AudioBuffer(channelCount: buffer.channelCount, frameCapacity: buffer.frameCapacity, zeroed: false)
        for c in 0..<buffer.channelCount {
            let gain = gains[c]
            buffer.withChannel(c) { from in scaled.withChannel(c) { to in for i in 0..<to.count { to[i] = from[i] * gain } } }
        }
        try meter.add((0..<scaled.channelCount).map { c in scaled.withChannel(c) { UnsafeBufferPointer($0) } })
        let measured = try meter.result()
        guard let lufs = measured.integratedLUFS else {
            throw ShadesError(parameter: .level, value: level.summary, problem: "leaves the sound silent", allowed: "a sound with a loudness")
        }
        guard case .truePeakCeiling(let ceiling) = level, let truePeak = measured.truePeakDBTP else { return lufs }
        let gain = LevelPolicy.ceilingGain(forPeak: Decibels.amplitude(truePeak), ceilingDBTP: ceiling, format: format)
        return lufs + Decibels.fromAmplitude(Double(gain))
    }
}

import ShadesDSP
import ShadesRender
import ShadesAnalysis

/// A sound's loudness at a known RMS: what a LUFS level needs to know its RMS (so its dB SPL) and true peak.
enum LoudnessProbe {
    struct Measurement {
        /// Integrated loudness (ITU-R BS.1770, libebur128), LUFS, and true peak, dBTP, at ``rmsDBFS``.
        let integratedLUFS: Double
        let truePeakDBTP: Double
        /// The sustained sound's RMS as measured, dBFS.
        let rmsDBFS: Double
    }

    /// Block length of the pass, frames.
    static let blockFrames = 4096

    /// `request`'s sound over its length at the reference RMS (−20 dBFS, the exact gains a file gets: its
    /// sustained sound at the level, lowered by a modulation that keeps the peak), measured with libebur128;
    /// refused when silent.
    static func measure(_ request: RenderRequest) throws(ShadesError) -> Measurement {
        var probe = request
        probe.level = .rms(dBFS: RenderRequest.referenceLevelDBFS)
        let graph = try SoundGraph(probe)
        let source = graph.makeSource(gains: graph.exactGains())
        let meter = try LoudnessMeter(channelCount: source.channelCount, sampleRate: graph.sampleRate)
        let buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: blockFrames)
        var done = 0
        while done < graph.frames {
            let n = min(blockFrames, graph.frames - done)
            try buffer.withBlock(frames: 0..<n) { (block: AudioBlock) throws(ShadesError) in
                source.render(into: block)
                try meter.add(block)
            }
            done += n
        }
        let report = try meter.result()
        guard let lufs = report.integratedLUFS, let truePeak = report.truePeakDBTP else {
            throw ShadesError(.parameter, "is silent: it has no loudness to set (allowed: a level in dBFS or dB SPL)", parameter: .level)
        }
        let ratioDB = Decibels.fromAmplitude(request.sound.modulation?.levelRatio ?? 1)
        return Measurement(integratedLUFS: lufs, truePeakDBTP: truePeak, rmsDBFS: RenderRequest.referenceLevelDBFS + ratioDB)
    }
}

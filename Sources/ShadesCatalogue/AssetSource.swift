import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

extension CatalogueAsset {
    /// A catalogue sound as a stream: its source and its length.
    public struct Stream {
        /// The sound block by block: the samples the catalogue file holds before its loudness gain (and
        /// quantisation).
        public let source: any AudioSource
        /// Frames of the catalogue file (the source goes on past them: generators are endless, music and
        /// loops end in silence).
        public let frameCount: Int
        /// The tone frequency rendered (a loop adjusts it), Hz.
        public let renderedFrequencyHz: Double?
    }

    /// The sound as a stream through the source graph: each layer's ``SoundGraph`` at its exact level
    /// (measured over the file's length, as the file has it), times its gain and swell, mixed; or the
    /// music decoded, resampled to the catalogue rate and notched, under a 0 dBTP ceiling. Not real-time:
    /// the exact levels and the music's true peak take a measuring pass first.
    public func makeStream() throws(ShadesError) -> Stream {
        if let music { return try notchedMusic(music, keepingSamples: false).stream! }
        var layerSources: [MixSource.Layer] = []
        var frequency: Double?
        for layer in layers ?? [MixLayer(request: request, gainDB: 0)] {
            let graph: SoundGraph
            do throws(ShadesError) { graph = try SoundGraph(layer.request) } catch { throw .asset(id: id, message: error.description) }
            frequency = frequency ?? graph.renderedFrequencyHz
            layerSources.append(try mixLayer(layer, source: graph.makeUnscaledSource(),
                                             channelGains: graph.channelGains(graph.exactGains()), frames: graph.frames))
        }
        return Stream(source: try mix(layerSources), frameCount: request.frameCount, renderedFrequencyHz: frequency)
    }

    /// The sound rendered into memory, the way the builder makes it: each layer rendered once in memory
    /// (and measured there), then mixed through the same graph as ``makeStream()``.
    package func renderBuffer() throws(ShadesError) -> (buffer: AudioBuffer, renderedFrequencyHz: Double?) {
        if let music {
            return (try notchedMusic(music, keepingSamples: true).buffer!, nil)
        }
        var layerSources: [MixSource.Layer] = []
        var frequency: Double?
        for layer in layers ?? [MixLayer(request: request, gainDB: 0)] {
            let rendered: RenderedSound
            do throws(ShadesError) { rendered = try Renderer.render(layer.request) } catch {
                throw .asset(id: id, message: error.description)
            }
            frequency = frequency ?? rendered.renderedFrequencyHz
            layerSources.append(try mixLayer(layer, source: BufferSource(buffer: rendered.buffer, sampleRate: layer.request.sampleRate),
                                             channelGains: rendered.gains, frames: rendered.buffer.frameCapacity))
        }
        return (try mix(layerSources).renderBuffer(frameCount: request.frameCount), frequency)
    }

    /// The sound looped as the app plays the catalogue file: rendered once into memory, as `catalogue build`
    /// renders it, with the gain in dB that brings it to ``loudnessLUFS`` (0 for a silent sound). Not
    /// real-time: it renders and measures the whole file first.
    public func makeLoop() throws(ShadesError) -> (source: BufferSource, gainDB: Double) {
        let (buffer, _) = try renderBuffer()
        let measured = try measureLoudness(buffer).integratedLUFS
        let loop = BufferSource(buffer: buffer, sampleRate: request.sampleRate)
        loop.loops = true
        return (loop, measured.map { LoudnessMeter.gainToReach(targetLUFS: loudnessLUFS, measuredLUFS: $0) } ?? 0)
    }

    /// Integrated loudness (LUFS), true peak (dBTP) and sample peak (dBFS) of the rendered sound, before
    /// its gain: what the builder sets that gain from.
    package func measureLoudness(_ buffer: AudioBuffer) throws(ShadesError)
        -> (integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?) {
        do throws(ShadesError) {
            var meter = try LoudnessAndPeak(channelCount: buffer.channelCount, sampleRate: request.sampleRate)
            try meter.add((0..<buffer.channelCount).map { c in buffer.withChannel(c) { UnsafeBufferPointer($0) } })
            return try meter.result()
        } catch { throw .asset(id: id, message: "cannot measure loudness: \(error.description)") }
    }

    /// One layer of the mix: its channel gains times the layer's gain, and its swell.
    private func mixLayer(_ layer: MixLayer, source: any AudioSource, channelGains: [Float], frames: Int) throws(ShadesError) -> MixSource.Layer {
        let layerGain = Float(Decibels.amplitude(layer.gainDB))
        var swell: SwellEnvelope?
        if let period = layer.swellPeriodSeconds {
            let rate = layer.request.sampleRate
            let periods = layer.request.loop ? SwellEnvelope.loopPeriods(near: period, frameCount: frames, sampleRate: rate) : nil
            do throws(ShadesError) {
                swell = try SwellEnvelope(sampleRate: rate, periodSeconds: period, depth: layer.swellDepth ?? 0.5,
                                          seed: layer.request.seed, periodsSeconds: periods)
            } catch { throw .asset(id: id, message: error.description) }
        }
        return MixSource.Layer(source: source, channelGains: channelGains.map { $0 * layerGain }, swell: swell)
    }

    private func mix(_ layers: [MixSource.Layer]) throws(ShadesError) -> MixSource {
        do throws(ShadesError) { return try MixSource(layers: layers) } catch {
            throw .asset(id: id, message: "layers differ in channels or length")
        }
    }

    /// The patient's music notched at the catalogue's rate (a file source, then the notch with the delay
    /// removed: sample-aligned, exactly as long), times the gain that keeps its true peak at or below
    /// 0 dBTP; the builder then sets its loudness like any other sound. Music not read whole
    /// (``AudioFileSource/lengthWarning``: a cut MP3) is refused: a catalogue sound is all of its source.
    /// With `keepingSamples`, the measuring pass keeps the notched samples and returns them times the gain
    /// (the builder's one render); without, it returns a fresh stream of them.
    private func notchedMusic(_ music: MusicInput, keepingSamples keep: Bool) throws(ShadesError) -> (stream: Stream?, buffer: AudioBuffer?) {
        let rate = request.sampleRate
        func chain() throws(ShadesError) -> (AudioFileSource, NotchedSource) {
            do throws(ShadesError) {
                let file = try AudioFileSource(path: music.path, sampleRate: rate, blockFrames: NotchedMusic.blockFrames)
                let design = try NotchDesign(notches: [music.notch], sampleRate: rate)
                return (file, try NotchedSource(source: file, design: design, alignment: .silentPast))
            } catch { throw .asset(id: id, message: error.description) }
        }
        // The measuring pass: the length, the true peak (and the samples, for the builder).
        let (file, notched) = try chain()
        let block = NotchedMusic.blockFrames
        let capacity = keep ? file.outputFrames(forInput: file.announcedInputFrames) : block
        let kept = AudioBuffer(channelCount: file.channelCount, frameCapacity: max(capacity, block), zeroed: false)
        var peaks = Array(repeating: TruePeakMeter(sampleRate: rate), count: file.channelCount)
        var done = 0
        while file.frameCount.map({ done < $0 }) ?? true {
            let start = keep ? done : 0
            let n = min(block, kept.frameCapacity - start)
            guard n > 0 else { break }
            kept.withBlock(frames: start..<start + n) { notched.render(into: $0) }
            // The notch renders the file ahead of its output: the file's end is known before it is reached.
            let valid = max(0, min(n, (file.frameCount ?? Int.max) - done))
            for c in 0..<file.channelCount {
                kept.withChannel(c) { peaks[c].add(UnsafeBufferPointer(rebasing: $0[start..<start + valid])) }
            }
            done += valid
        }
        if let failure = file.failure { throw .asset(id: id, message: failure.description) }
        if let warning = file.lengthWarning { throw .asset(id: id, message: warning) }
        let gain = NotchedMusic.ceilingGain(forPeak: peaks.map(\.peak).max() ?? 0, ceilingDBTP: 0, sampleFormat: .f32)
        var buffer: AudioBuffer?
        if keep {
            let result = AudioBuffer(channelCount: file.channelCount, frameCapacity: done, zeroed: false)
            for c in 0..<file.channelCount {
                kept.withChannel(c) { from in
                    result.withChannel(c) { to in
                        SignalQuantizer.scale(UnsafeBufferPointer(rebasing: from[0..<done]), gain: gain, into: to)
                    }
                }
            }
            buffer = result
        }
        if keep { return (nil, buffer) }
        let (_, fresh) = try chain()
        let source = try mix([MixSource.Layer(source: fresh, gain: gain)])
        return (Stream(source: source, frameCount: done, renderedFrequencyHz: nil), nil)
    }
}

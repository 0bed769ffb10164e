import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

extension CatalogueAsset {
    /// A catalogue sound as a stream: its source and its length.
    package struct Stream {
        /// The sound block by block: the samples the catalogue file holds before its loudness gain (and
        /// quantisation).
        package let source: any AudioSource
        /// Frames of the catalogue file (the source goes on past them: generators are endless, music and
        /// loops end in silence).
        package let frameCount: Int
        /// The tone frequency rendered (a loop adjusts it), Hz.
        package let renderedFrequencyHz: Double?
    }

    /// The request at the reference level: what the builder renders before setting the loudness.
    private var referenceRequest: RenderRequest {
        var r = resolvedRequest
        r.level = r.sound.file != nil ? .truePeakCeiling(dBTP: 0) : .rms(dBFS: RenderRequest.referenceLevelDBFS)
        return r
    }

    /// The sound as a stream through its ``SoundGraph``: a generator's signals at the reference level
    /// (exact, measured over the file's length as the file has it), a mix's layers each at it times their
    /// gains, a file as decoded and notched. Not real-time: the exact levels take a measuring pass first.
    package func makeStream() throws(ShadesError) -> Stream {
        let graph: SoundGraph
        do throws(ShadesError) { graph = try SoundGraph(referenceRequest) } catch { throw .asset(id: id, message: error.description) }
        let frames = graph.playsFileToEnd ? graph.measure(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0),
                                                                         count: graph.signalCount)).frames : graph.frames
        let gains = graph.layout == nil ? Array(repeating: Float(1), count: graph.signalCount) : graph.exactGains()
        return Stream(source: graph.makeSource(gains: gains), frameCount: frames, renderedFrequencyHz: graph.renderedFrequencyHz)
    }

    /// The sound in two streaming passes (``FileSoundPasses``) when it plays a file to its end (music): its
    /// memory does not grow with the song. Nil for every other sound.
    func fileSoundPasses() throws(ShadesError) -> FileSoundPasses? {
        do throws(ShadesError) { return try FileSoundPasses(referenceRequest) } catch { throw .asset(id: id, message: error.description) }
    }

    /// The sound rendered into memory, the way the builder makes it: a generator rendered and measured in
    /// memory, then times its exact gains; a mix or a file as its graph renders it. And the file frames
    /// decoded, for a file.
    package func renderBuffer() throws(ShadesError) -> (buffer: AudioBuffer, renderedFrequencyHz: Double?) {
        let rendered: RenderedSound
        do throws(ShadesError) { rendered = try Renderer.render(referenceRequest) } catch {
            throw .asset(id: id, message: error.description)
        }
        guard resolvedRequest.sound.generator != nil, resolvedRequest.sound.swell == nil else {
            return (rendered.buffer, rendered.renderedFrequencyHz)  // a mix's layers and a file are at their level already
        }
        let buffer = AudioBuffer(channelCount: rendered.buffer.channelCount, frameCapacity: rendered.buffer.frameCapacity, zeroed: false)
        for c in 0..<buffer.channelCount {
            let gain = rendered.gains[c]
            rendered.buffer.withChannel(c) { from in buffer.withChannel(c) { to in for i in 0..<to.count { to[i] = from[i] * gain } } }
        }
        return (buffer, rendered.renderedFrequencyHz)
    }

    /// The sound looped as the app plays the catalogue file: rendered once into memory, as `catalogue build`
    /// renders it, with the gain in dB that brings it to ``loudnessLUFS`` (0 for a silent sound). Not
    /// real-time: it renders and measures the whole file first.
    package func makeLoop() throws(ShadesError) -> (source: BufferSource, gainDB: Double) {
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
}

import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

extension CatalogueAsset {
    /// The request at the reference level: what the builder renders before setting the loudness.
    package var referenceRequest: RenderRequest {
        var r = resolvedRequest
        r.level = r.sound.file != nil ? .truePeakCeiling(dBTP: 0) : .rms(dBFS: RenderRequest.referenceLevelDBFS)
        return r
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

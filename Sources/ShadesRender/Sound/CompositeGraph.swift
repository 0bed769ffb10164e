import ShadesDSP
import ShadesIO

extension SoundGraph {
    /// A mix, a sound with a swell, or a file: one multichannel group with one gain (see the type).
    static func composite(_ request: RenderRequest, opened: GraphSoundFile? = nil) throws(ShadesError) -> SoundGraph {
        let rate = request.sampleRate
        let sound = request.sound
        let failures = GraphFailures()
        var notes: [String] = []
        var frequency: Double?
        var frames = request.frameCount
        var toEnd = false
        var soundFile: GraphSoundFile?
        var notchDelayFrames = 0
        let channelCount: Int
        let base: @Sendable () -> (source: any AudioSource, file: AudioFileSource?)
        // The modifiers applied over the group (a swelled sound keeps its own inside its one layer).
        var modifiers = sound
        if sound.swell != nil || sound.layers != nil {
            let layers = sound.swell != nil ? [Layer(sound)] : sound.layers!
            if sound.swell != nil { modifiers = Sound(.mix([])) }
            var made: [(graph: SoundGraph, gains: [Float], layer: Layer, seed: UInt64)] = []
            for (index, layer) in layers.enumerated() {
                let layerRequest = try request.layerRequest(layer, index: index)
                let graph = try SoundGraph(layerRequest)
                frequency = frequency ?? graph.renderedFrequencyHz
                notes += graph.notes
                made.append((graph, graph.exactGains(), layer, layerRequest.resolvedSeed))
            }
            channelCount = request.resolvedLayout.outputChannelCount
            let parts = made, mixFrames = frames
            base = {
                let layers = parts.map { part -> MixSource.Layer in
                    let layerGain = Float(Decibels.amplitude(part.layer.gainDB))
                    var swell: SwellEnvelope?
                    if let s = part.layer.sound.swell {
                        let periods = request.loop ? SwellEnvelope.loopPeriods(near: s.periodSeconds, frameCount: mixFrames, sampleRate: rate) : nil
                        swell = try! SwellEnvelope(sampleRate: rate, periodSeconds: s.periodSeconds, depth: s.depth, seed: part.seed,
                                                   periodsSeconds: periods)
                    }
                    return MixSource.Layer(source: part.graph.makeUnscaledSource(),
                                           channelGains: part.graph.channelGains(part.gains).map { $0 * layerGain }, swell: swell)
                }
                return (try! MixSource(layers: layers), nil)
            }
        } else {
            let reference = sound.file!
            let opened = if let opened { opened } else { try GraphSoundFile(path: reference.path) }
            soundFile = opened
            channelCount = opened.channelCount
            guard request.resolvedLayout.outputChannelCount == channelCount || sound.channels == nil else {
                throw ShadesError(parameter: .channels, value: request.resolvedLayout.rawValue,
                                  problem: "does not fit \(reference.path) (\(channelCount) channels)",
                                  allowed: "the file's own channels")
            }
            let designs = try request.notches.map { (n: [NotchSpec]) throws(ShadesError) in
                try NotchModifier.designs(n, channelCount: channelCount, sampleRate: rate)
            }
            notchDelayFrames = designs?.map(\.halfLength).max() ?? 0
            toEnd = request.durationSeconds == RenderRequest.untilEndOfFile
            if toEnd {
                let announced = opened.announcedFrames
                frames = opened.sampleRate == rate ? announced
                    : StreamingResampler.outputFrameCount(inputFrames: announced, inputRate: opened.sampleRate, outputRate: rate)
            }
            // The header read above refuses a file that cannot be read before any pass; the first pass takes
            // its decoder over.
            let quality = request.resamplerQuality
            base = {
                do throws(ShadesError) {
                    let chain = try opened.makeChain(sampleRate: rate, quality: quality, designs: designs)
                    return (chain.source, chain.file)
                } catch {
                    failures.record(error)
                    return (SilenceSource(sampleRate: rate, channelCount: channelCount), nil)
                }
            }
        }

        // Modifiers over the group: notches (a mix's; a file's are in its chain), the spectral shape, modulation,
        // pulses, fades.
        let notches = try (sound.file == nil ? modifiers.notches : nil).flatMap { (n: [NotchSpec]) throws(ShadesError) in
            n.isEmpty ? nil : try NotchModifier.designs(n, channelCount: channelCount, sampleRate: rate)
        }
        if let notches { notchDelayFrames = notches.map(\.halfLength).max() ?? 0 }
        let shape = try modifiers.shape.map { (s: SpectralShape) throws(ShadesError) in try NotchDesign(shaping: s.curve, sampleRate: rate) }
        let group = base
        let chain = try ModifierChain(base: { _ in group() }, filters: .alignedToSilentPast(notches: notches, shape: shape),
                                      sound: modifiers, request: request, frames: frames, notes: notes)
        let makeFinal = chain.final, makeSustained = chain.sustained
        var graph = SoundGraph(
            outputChannelCount: channelCount, channelMap: Array(0..<channelCount), groupChannelCounts: [channelCount], layout: nil,
            frames: frames, sampleRate: rate, makeGroup: { makeFinal($0).source },
            makeChain: { group, isSustained in isSustained ? makeSustained(group) : makeFinal(group) },
            knownMeasurements: nil, levelScatterDB: nil, levelRatio: modifiers.modulation?.levelRatio ?? 1,
            levelsEachSignal: false, playsFileToEnd: toEnd, renderedFrequencyHz: frequency, renderedModulationHz: chain.modulationRateHz,
            notes: chain.notes, level: request.level, levelDBFS: request.levelDBFS, failures: failures)
        graph.soundFile = soundFile
        graph.notchDelayFrames = notchDelayFrames
        return graph
    }
}

import Synchronization
import ShadesDSP
import ShadesIO

/// The one place a sound file becomes a source: decoded and resampled to the rate (``AudioFileSource``,
/// its own reader thread), then its notches (per ear for a stereo file) with the filter delay removed, so
/// the output is sample-aligned with the file and exactly as long. `notch`, the catalogue's music, `play`
/// and any mix with a file layer make it here.
package enum FileChain {
    /// Frames per block read and filtered.
    package static let blockFrames = 131_072

    /// The file at `path` and its notched stream. `designs` are one per channel (nil: no notch anywhere).
    package static func make(path: String, sampleRate: Double, quality: Resampler.Quality = .best,
                             designs: [NotchDesign]?, measuringInputSpectrum: Bool = false,
                             tap: ((AudioFileSource) -> any AudioSource)? = nil) throws(ShadesError)
        -> (file: AudioFileSource, source: any AudioSource, notched: NotchedSource?) {
        let file = try AudioFileSource(path: path, sampleRate: sampleRate, quality: quality, blockFrames: blockFrames)
        let input = tap?(file) ?? file
        guard let designs else { return (file, input, nil) }
        let notched = try NotchedSource(source: input, designs: Array(designs.prefix(file.channelCount)), alignment: .silentPast,
                                        measuringInputSpectrum: measuringInputSpectrum)
        return (file, notched, notched)
    }

    /// One design per channel of a `channelCount`-channel file for `notches` (a notch for one ear goes to
    /// that channel of a stereo file; every channel of another file).
    package static func designs(_ notches: [NotchSpec], channelCount: Int, sampleRate: Double) throws(ShadesError) -> [NotchDesign] {
        var designs: [NotchDesign] = []
        for channel in 0..<channelCount {
            let own = notches.filter { $0.ears == .both || channelCount != 2 || $0.ears.includes(outputChannel: channel, of: 2) }
            if let same = designs.first(where: { $0.notches == own }) { designs.append(same); continue }
            designs.append(try NotchDesign(notches: own, sampleRate: sampleRate))
        }
        return designs
    }
}

/// The first failure of a file source opened inside a graph's (non-throwing) source factory: the file was
/// readable when the graph was made and is not any more. ``Renderer`` checks it after each pass.
package final class GraphFailures: Sendable {
    private let first = Mutex<ShadesError?>(nil)
    package init() {}
    package func record(_ error: ShadesError) { first.withLock { if $0 == nil { $0 = error } } }
    package var error: ShadesError? { first.withLock { $0 } }
}

extension SoundGraph {
    /// A mix, a sound with a swell, or a file: one multichannel group with one gain (see the type).
    static func composite(_ request: RenderRequest) throws(ShadesError) -> SoundGraph {
        let rate = request.sampleRate
        let sound = request.sound
        let failures = GraphFailures()
        var notes: [String] = []
        var frequency: Double?
        var frames = request.frameCount
        var toEnd = false
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
            let opened = try AudioFileSource.openInput(path: reference.path)
            channelCount = opened.channelCount
            guard request.resolvedLayout.outputChannelCount == channelCount || sound.channels == nil else {
                throw ShadesError(parameter: .channels, value: request.resolvedLayout.rawValue,
                                  problem: "does not fit \(reference.path) (\(channelCount) channels)",
                                  allowed: "the file's own channels")
            }
            let designs = try request.notches.map { (n: [NotchSpec]) throws(ShadesError) in
                try FileChain.designs(n, channelCount: channelCount, sampleRate: rate)
            }
            toEnd = request.durationSeconds == RenderRequest.untilEndOfFile
            if toEnd {
                let announced = opened.frameCount
                frames = Double(opened.sampleRate) == rate ? announced
                    : StreamingResampler.outputFrameCount(inputFrames: announced, inputRate: Double(opened.sampleRate), outputRate: rate)
            }
            // The header read above refuses a file that cannot be read before any pass.
            let path = reference.path
            base = {
                do throws(ShadesError) {
                    let chain = try FileChain.make(path: path, sampleRate: rate, designs: designs)
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
            n.isEmpty ? nil : try FileChain.designs(n, channelCount: channelCount, sampleRate: rate)
        }
        let shape = try modifiers.shape.map { (s: SpectralShape) throws(ShadesError) in try NotchDesign(shaping: s.curve, sampleRate: rate) }
        let group = base
        let chain = try ModifierChain(
            base: { _ in group() }, filters: .alignedToSilentPast(notches: notches, shape: shape), modulation: modifiers.modulation,
            pulses: modifiers.pulses, fades: modifiers.fades, request: request, frames: frames, notes: &notes)
        let makeFinal = chain.final, makeSustained = chain.sustained
        return SoundGraph(
            outputChannelCount: channelCount, channelMap: Array(0..<channelCount), groupChannelCounts: [channelCount], layout: nil,
            frames: frames, sampleRate: rate, makeGroup: { makeFinal($0).source },
            makeChain: { group, isSustained in isSustained ? makeSustained(group) : makeFinal(group) },
            knownMeasurements: nil, levelScatterDB: nil, levelRatio: modifiers.modulation?.levelRatio ?? 1,
            levelsEachSignal: false, playsFileToEnd: toEnd, renderedFrequencyHz: frequency, renderedModulationHz: chain.modulationRateHz,
            notes: notes, level: request.level, levelDBFS: request.levelDBFS, failures: failures)
    }
}

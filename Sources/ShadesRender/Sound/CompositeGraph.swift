import ShadesDSP
import ShadesIO

/// The one multichannel group a mix (``Mix``) or a file (``SoundFileReference``) makes, before the
/// modifiers over it.
struct CompositeGroup {
    let channelCount: Int
    /// Frames of the request, or the file's decoded length when it plays to its end.
    var frames: Int
    /// A fresh source of the group and the file it reads (nil for a mix).
    var make: @Sendable () -> (source: any AudioSource, file: AudioFileSource?) = { fatalError("a group is made by its source") }
    var playsToEnd = false
    /// The frequency the first tonal layer was made at, Hz.
    var frequencyHz: Double?
    var notes: [String] = []
    var soundFile: GraphSoundFile?
    /// The notches' delay removed in a file's chain, frames.
    var notchDelayFrames = 0

    init(channelCount: Int, frames: Int) { (self.channelCount, self.frames) = (channelCount, frames) }
}

extension SoundGraph {
    /// A mix, a sound with a swell, or a file: one multichannel group with one gain (see the type).
    static func composite(_ request: RenderRequest, opened: GraphSoundFile? = nil) throws(ShadesError) -> SoundGraph {
        let rate = request.sampleRate
        let sound = request.sound
        let failures = GraphFailures()
        var group: CompositeGroup
        // The modifiers applied over the group (a swelled sound keeps its own inside its one layer).
        var modifiers = sound
        if sound.swell != nil {
            group = try Mix(layers: [Layer(sound)]).group(request)
            modifiers = Sound(.mix([]))
        } else if let layers = sound.layers {
            group = try Mix(layers: layers).group(request)
        } else {
            group = try sound.file!.group(request, opened: opened, failures: failures)
        }

        // Modifiers over the group: notches (a mix's; a file's are in its chain), the spectral shape, modulation,
        // pulses, fades.
        let channelCount = group.channelCount
        let notches = try (sound.file == nil ? modifiers.notches : nil).flatMap { (n: [NotchSpec]) throws(ShadesError) in
            n.isEmpty ? nil : try NotchModifier.designs(n, channelCount: channelCount, sampleRate: rate)
        }
        if let notches { group.notchDelayFrames = notches.map(\.halfLength).max() ?? 0 }
        let shape = try modifiers.shape.map { (s: SpectralShape) throws(ShadesError) in try NotchDesign(shaping: s.curve, sampleRate: rate) }
        let base = group.make
        let chain = try ModifierChain(base: { _ in base() }, filters: .alignedToSilentPast(notches: notches, shape: shape),
                                      sound: modifiers, request: request, frames: group.frames, notes: group.notes)
        let makeFinal = chain.final, makeSustained = chain.sustained
        var graph = SoundGraph(
            outputChannelCount: channelCount, channelMap: Array(0..<channelCount), groupChannelCounts: [channelCount], layout: nil,
            frames: group.frames, sampleRate: rate, makeGroup: { makeFinal($0).source },
            makeChain: { group, isSustained in isSustained ? makeSustained(group) : makeFinal(group) },
            knownMeasurements: nil, levelScatterDB: nil, levelRatio: modifiers.modulation?.levelRatio ?? 1,
            levelsEachSignal: false, playsFileToEnd: group.playsToEnd, renderedFrequencyHz: group.frequencyHz,
            renderedModulationHz: chain.modulationRateHz, notes: chain.notes, level: request.level, levelDBFS: request.levelDBFS,
            failures: failures)
        graph.soundFile = group.soundFile
        graph.notchDelayFrames = group.notchDelayFrames
        return graph
    }
}

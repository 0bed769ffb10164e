import ShadesDSP
import ShadesIO

/// The mix source, described once: layers summed, each a sound of its own at its gain and in its ears. Its
/// JSON form is `{ "layers": [ { <a sound>, "gainDB": -9, "ears": "left" }, … ] }`; it is checked here and
/// made here (one multichannel group; the modifiers over it are the mix's own, ``ModifierChain``).
struct Mix: SoundSourceKind {
    let layers: [Layer]

    /// Keys a layer adds to its sound's.
    static let layerKeys = ["gainDB", "ears"]

    /// The mix in `o` (which has "layers"); `readLayer` reads one layer's sound and keys at a path.
    static func read(_ o: JSONObjectReader, reader: JSONTreeReader,
                     readLayer: (JSONValue, String) throws(ShadesError) -> Layer) throws(ShadesError) -> Sound.Source {
        var layers: [Layer] = []
        for (index, item) in try o.array("layers", required: true).enumerated() {
            layers.append(try readLayer(item, o.path(of: "layers") + "[\(index)]"))
        }
        if layers.isEmpty { throw reader.error(o.location(of: "layers"), "'layers' is empty (allowed: one or more layers)") }
        for key in Sound.allSourceKeys where o[key] != nil {
            throw reader.error(o.location(of: key), "key '\(key)' does not apply to a mix (it belongs to a layer's source)")
        }
        return .mix(layers)
    }

    func encodeSource(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        var list = c.nestedUnkeyedContainer(forKey: "layers")
        for layer in layers {
            var l = list.nestedContainer(keyedBy: JSONKey.self)
            try layer.sound.encodeFields(into: &l)
            if layer.gainDB != 0 { try l.encode(layer.gainDB, forKey: "gainDB") }
            if layer.ears != .both { try l.encode(layer.ears, forKey: "ears") }
        }
    }

    /// Every layer checked as its own request (``RenderRequest/layerRequest(_:index:)``); an error names
    /// the layer.
    func validate(in request: RenderRequest) throws(ShadesError) {
        guard !layers.isEmpty else {
            throw ShadesError(parameter: .layers, value: "none", problem: "is empty", allowed: "one or more layers")
        }
        for (index, layer) in layers.enumerated() {
            do throws(ShadesError) {
                guard layer.gainDB.isFinite, Layer.allowedGainDB.contains(layer.gainDB) else {
                    throw ShadesError(parameter: .layerGain, value: "\(formatNumber(layer.gainDB)) dB", allowed: "-60 … 0 dB")
                }
                try layer.sound.swell?.validate()  // applied where the layer's gain is, not in its request
                try request.layerRequest(layer, index: index).validate()
            } catch {
                var located = error
                located.layerPath.insert(index, at: 0)
                throw located
            }
        }
    }

    /// The mix as one group: each layer's graph at its exact gains (its sustained sound at the reference
    /// level), then its gain and swell, summed.
    func group(_ request: RenderRequest) throws(ShadesError) -> CompositeGroup {
        var made: [(graph: SoundGraph, gains: [Float], layer: Layer, seed: UInt64)] = []
        var group = CompositeGroup(channelCount: request.resolvedLayout.outputChannelCount, frames: request.frameCount)
        for (index, layer) in layers.enumerated() {
            let layerRequest = try request.layerRequest(layer, index: index)
            let graph = try SoundGraph(layerRequest)
            group.frequencyHz = group.frequencyHz ?? graph.renderedFrequencyHz
            group.notes += graph.notes
            made.append((graph, graph.exactGains(), layer, layerRequest.resolvedSeed))
        }
        let parts = made, frames = group.frames, rate = request.sampleRate, loop = request.loop
        group.make = {
            let layers = parts.map { part -> MixSource.Layer in
                let layerGain = Float(Decibels.amplitude(part.layer.gainDB))
                var swell: SwellEnvelope?
                if let s = part.layer.sound.swell {
                    let periods = loop ? SwellEnvelope.loopPeriods(near: s.periodSeconds, frameCount: frames, sampleRate: rate) : nil
                    swell = try! SwellEnvelope(sampleRate: rate, periodSeconds: s.periodSeconds, depth: s.depth, seed: part.seed,
                                               periodsSeconds: periods)
                }
                return MixSource.Layer(source: part.graph.makeUnscaledSource(),
                                       channelGains: part.graph.channelGains(part.gains).map { $0 * layerGain }, swell: swell)
            }
            return (try! MixSource(layers: layers), nil)
        }
        return group
    }
}

/// One layer of a mix: a sound, its gain in dB and the ears it goes to.
public struct Layer: Sendable, Equatable {
    public var sound: Sound
    /// Gain in the mix, dB (−60 … 0). Each layer is first brought to one reference level (RMS of its
    /// sustained sound), so only the differences between layers matter.
    public var gainDB: Double
    /// Where the layer is heard.
    public var ears: Ears

    public init(_ sound: Sound, gainDB: Double = 0, ears: Ears = .both) {
        (self.sound, self.gainDB, self.ears) = (sound, gainDB, ears)
    }

    /// Allowed layer gains, dB.
    package static let allowedGainDB: ClosedRange<Double> = -60...0

    /// Reads the layer's own keys (gain, ears) from `o` into it.
    mutating func readPlacement(_ o: JSONObjectReader) throws(ShadesError) {
        gainDB = try o.number("gainDB") ?? 0
        ears = try o.choice("ears", Ears.self) ?? .both
    }
}

extension RenderRequest {
    /// The request of layer `index` of a mix: its sound at the reference level (each layer's sustained
    /// sound at one RMS, then its gain), seed + index, in its ears, with this request's length and loop.
    package func layerRequest(_ layer: Layer, index: Int) throws(ShadesError) -> RenderRequest {
        let parent = resolvedLayout
        var layout = layer.sound.channels ?? parent
        switch layer.ears {
        case .both: break
        case .left, .right:
            guard parent.outputChannelCount == 2 else {
                throw ShadesError(parameter: .ears, value: layer.ears.rawValue, problem: "needs two channels",
                                  allowed: "both, in a mono sound")
            }
            layout = layer.ears == .left ? .left : .right
        }
        guard layout.outputChannelCount == parent.outputChannelCount else {
            throw ShadesError(parameter: .channels, value: layout.rawValue, problem: "does not fit the mix's \(parent.rawValue)",
                              allowed: "a layout with as many channels as the mix")
        }
        var sound = layer.sound
        sound.swell = nil  // applied where the layer's gain is
        sound.channels = nil
        return RenderRequest(sound: sound, durationSeconds: durationSeconds, sampleRate: sampleRate, layout: layout,
                             level: .rms(dBFS: Self.referenceLevelDBFS), seed: resolvedSeed &+ UInt64(index), loop: loop)
    }
}

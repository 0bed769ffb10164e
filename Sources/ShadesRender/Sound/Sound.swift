import ShadesDSP

/// A sound: what is heard, independent of how long, at what rate and how loud it is made (those are a
/// ``RenderRequest``'s). The one description that `render`, `play`, the catalogue and `notch` all make the
/// same thing from; its JSON is the preset format's `sound` (Presets/README.md).
///
/// A sound is a ``Source`` (a generator, a decoded file, or a mix of layers, each layer a sound again) and
/// the modifiers over it, applied in this order: frequency modulation (by a tone's or a band's generator) → notches → shape → amplitude modulation → random modulation →
/// surf → pulses → fades, then the swell where the layer's gain is applied (`modifierKinds`). `channels` and `seed` are the sound's own when set;
/// otherwise the request's.
///
/// ```swift
/// let sound = Sound(.noise(colour: .pink)).modulated(rateHz: 10)      // 10 Hz AM pink noise (Neff 2017)
/// let music = Sound.file(path: "song.mp3").notched(at: 6_000)         // notched music (Okamoto 2010)
/// ```
public struct Sound: Sendable, Equatable {
    /// What the sound starts from.
    public indirect enum Source: Sendable, Equatable {
        /// A generator: noise, a tone, a therapy stimulus.
        case generator(Generator)
        /// A sound file decoded (and resampled to the request's rate).
        case file(SoundFileReference)
        /// Layers summed, each at its gain and in its ears.
        case mix([Layer])

        /// Its description: how it is read, written and checked (the kind's own file says).
        var kind: any SoundSourceKind {
            switch self {
            case .generator(let generator): generator
            case .file(let file): file
            case .mix(let layers): Mix(layers: layers)
            }
        }
    }

    public var source: Source
    /// Notches cut from the sound (Okamoto 2010; Stein 2016 with edge boosts); each may be one ear's.
    public var notches: [NotchSpec]?
    /// A gain over frequency after the notches (hearing-loss shaping by an audiogram: Cuesta 2022).
    public var shape: SpectralShape?
    /// Frequency modulation of a tone's frequency or a narrow band's centre (Neff 2017), made by the generator.
    public var frequencyModulation: FrequencyModulation?
    /// Sinusoidal amplitude modulation (Neff 2017/2019, Schoisswohl 2019).
    public var modulation: Modulation?
    /// Random amplitude modulation: the level wanders along a band-limited random curve (never repeating).
    public var randomModulation: RandomAmplitudeModulation?
    /// Surf: waves of level with an asymmetric (damped or ramped) envelope.
    public var surf: Surf?
    /// Pulses (audiometry): on/off times with raised-cosine ramps.
    public var pulses: Pulses?
    /// Raised-cosine fade-in and fade-out.
    public var fades: Fades?
    /// A slow random-like swell of the level (textures: surf, wind), applied with the sound's gain.
    public var swell: Swell?
    /// The channel layout, when the sound fixes it (else the request's).
    public var channels: ChannelLayout?
    /// The seed, when the sound fixes it (else the request's); layer i of a mix uses seed + i.
    public var seed: UInt64?

    public init(_ source: Source, notches: [NotchSpec]? = nil, modulation: Modulation? = nil, pulses: Pulses? = nil,
                fades: Fades? = nil, swell: Swell? = nil, channels: ChannelLayout? = nil, seed: UInt64? = nil,
                shape: SpectralShape? = nil) {
        self.source = source
        self.notches = notches
        self.shape = shape
        self.modulation = modulation
        self.pulses = pulses
        self.fades = fades
        self.swell = swell
        self.channels = channels
        self.seed = seed
    }

    /// A generator with no modifiers.
    public init(_ generator: Generator) { self.init(.generator(generator)) }

    /// A mix of `layers`.
    public static func mix(_ layers: [Layer], channels: ChannelLayout? = nil, seed: UInt64? = nil) -> Sound {
        Sound(.mix(layers), channels: channels, seed: seed)
    }

    /// A sound file, decoded and resampled to the request's rate.
    public static func file(path: String) -> Sound { Sound(.file(SoundFileReference(path: path))) }

    /// The same sound amplitude modulated at `rateHz` (0.5 … 100 Hz) to `depth` (0 … 1).
    public func modulated(rateHz: Double, depth: Double = 1) -> Sound {
        var copy = self
        copy.modulation = Modulation(rateHz: rateHz, depth: depth)
        return copy
    }

    /// The same sound with a notch `widthOctaves` wide (default one octave, Okamoto 2010) at `centreHz`.
    public func notched(at centreHz: Double, widthOctaves: Double = 1) -> Sound {
        var copy = self
        copy.notches = (notches ?? []) + [NotchSpec(centreHz: centreHz, widthOctaves: widthOctaves)]
        return copy
    }

    /// The generator, when the sound is one (whatever its modifiers).
    package var generator: Generator? {
        if case .generator(let g) = source { return g }
        return nil
    }

    /// The file, when the sound is one.
    package var file: SoundFileReference? {
        if case .file(let f) = source { return f }
        return nil
    }

    /// The layers, when the sound is a mix.
    package var layers: [Layer]? {
        if case .mix(let l) = source { return l }
        return nil
    }

    /// The same sound with every file reference replaced by `transform` of it (paths made absolute,
    /// lengths recorded).
    package func mappingFiles(_ transform: (SoundFileReference) -> SoundFileReference) -> Sound {
        var copy = self
        switch source {
        case .generator: break
        case .file(let f): copy.source = .file(transform(f))
        case .mix(let layers):
            copy.source = .mix(layers.map { layer in
                var l = layer
                l.sound = layer.sound.mappingFiles(transform)
                return l
            })
        }
        return copy
    }

    /// True when the sound or any layer of it has a notch.
    package var hasNotch: Bool {
        if !(notches ?? []).isEmpty { return true }
        return layers?.contains { $0.sound.hasNotch } ?? false
    }

    /// Every sound file the sound reads, depth first.
    package var files: [SoundFileReference] {
        switch source {
        case .generator: return []
        case .file(let f): return [f]
        case .mix(let layers): return layers.flatMap(\.sound.files)
        }
    }
}

/// What every kind of ``Sound/Source`` says of itself, so the JSON writer and validation hold no per-kind
/// code: a generator (each kind in its own file under Generators, ``GeneratorKind``), a sound file
/// (``SoundFileReference``) and a mix (``Mix``). Each is read where its JSON is recognised (``SoundReader``)
/// and made by ``SoundGraph`` (a generator's signals; a file's or a mix's ``CompositeGroup``).
protocol SoundSourceKind {
    /// Writes the JSON form's source keys ("source" and its fields, or "layers").
    func encodeSource(into c: inout KeyedEncodingContainer<JSONKey>) throws
    /// Checks it at `request`'s rate, length and loop mode (the modifiers are checked by their own kinds).
    func validate(in request: RenderRequest) throws(ShadesError)
}

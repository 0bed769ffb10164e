import ShadesPlatform
import ShadesDSP

// Shams: the placebo twin of a therapy sound, for a blinded, sham-controlled trial. Each part of a sound
// declares its own sham beside it (``GeneratorKind/sham()``, ``ModifierKind/sham(_:)``); ``Sound/shamTwin()``
// applies every part's. A sham keeps everything else: length, rate, channels, seed and the parts that are
// not therapeutic; its level is matched in loudness to its twin's (``LevelPolicy/twinLevels(activeLUFS:shamLUFS:)``).
//
// Published shams: spectral ripple in the octave far from F (Yukhnovich 2025). Notched music: Okamoto 2010
// gave the placebo group music with a "moving" notch that did not cover the tinnitus frequency; a file has
// one fixed notch, so the nearest equivalent is the same notch moved away from F (``ShamFrequency``).
// Every other sham is a documented nearest equivalent: the same sound with its therapeutic frequency or
// modulation moved out of the therapeutic range.

/// Where a sham puts a sound's therapeutic frequency band: away from the tinnitus frequency F, so the sham
/// band and the active band are separated by at least 1.5 octaves and never a whole number of octaves apart
/// (pitch matches are often an octave off: Henry et al. 2004).
package enum ShamFrequency {
    /// Lowest lower band edge a moved band may have, Hz: a band that would reach below it moves up instead.
    package static let lowestEdgeHz = 100.0

    /// Octaves a band `widthOctaves` wide moves: its width rounded up, plus 1.5 (a tone, width 0: 1.5; a
    /// one-octave notch: 2.5). The gap between the bands is then at least 1.5 octaves.
    package static func shiftOctaves(widthOctaves: Double) -> Double { max(0, widthOctaves).rounded(.up) + 1.5 }

    /// The centre, Hz, a band centred at `centreHz` and `widthOctaves` wide moves to: down by
    /// ``shiftOctaves(widthOctaves:)``, or up by as much when its lower edge would go below ``lowestEdgeHz``.
    package static func moved(_ centreHz: Double, widthOctaves: Double) -> Double {
        let shift = pow(2, shiftOctaves(widthOctaves: widthOctaves))
        let down = centreHz / shift
        return down * pow(2, -max(0, widthOctaves) / 2) >= lowestEdgeHz ? down : centreHz * shift
    }
}

extension Sound {
    /// The sham twin of this sound: every therapeutic part moved out of its therapeutic range as the part
    /// declares it (a notch moved away from F, a tone or a band moved from F, 10 Hz modulation slowed to 2 Hz,
    /// coordinated reset around a moved F, ripple in its far octave); every other part, the channels and the
    /// seed kept. A mix's sham is each layer's. Refused, naming the sound, when no part of it is a therapy
    /// sound (plain noise, a file without a notch).
    public func shamTwin() throws(ShadesError) -> Sound {
        let (sham, moved) = shamParts()
        guard moved else {
            throw ShadesError(parameter: .sham, value: "of " + shamName, problem: "does not exist: it is not a therapy sound",
                              allowed: "a therapy sound: \(Self.therapyParts)")
        }
        return sham
    }

    /// The sound with each therapeutic part replaced by its sham, and whether any part was.
    func shamParts() -> (sound: Sound, moved: Bool) {
        var copy = self
        var moved = false
        switch source {
        case .generator(let generator):
            if let sham = generator.kind.shamGenerator() { (copy.source, moved) = (.generator(sham), true) }
        case .file:
            break
        case .mix(let layers):
            copy.source = .mix(layers.map { layer in
                var sham = layer
                let (sound, layerMoved) = layer.sound.shamParts()
                (sham.sound, moved) = (sound, moved || layerMoved)
                return sham
            })
        }
        for kind in Self.modifierKinds where kind.applySham(to: &copy) { moved = true }
        return (copy, moved)
    }

    /// The sound as a refusal names it: its source name with its modifiers' keys ("pink", "file with am").
    private var shamName: String {
        let source: String
        switch self.source {
        case .generator(let generator): source = generator.summary
        case .file(let file): source = "file \(file.path)"
        case .mix(let layers): source = "a mix of \(layers.count) layers"
        }
        let modifiers = Self.modifierKinds.filter { $0.isSet(in: self) }.map { $0.key }
        return modifiers.isEmpty ? source : source + " with " + modifiers.joined(separator: ", ")
    }

    /// The parts that declare a sham, for the refusal: each generator's names and each modifier's key.
    static var therapyParts: String {
        let generators = Generator.kinds.filter { $0.declaresSham }.flatMap { $0.names }
        let modifiers = modifierKinds.filter { $0.declaresSham }.map { $0.key }
        return generators.joined(separator: ", ") + ", or a sound with " + modifiers.joined(separator: " or ")
    }
}

extension GeneratorKind {
    /// The sham as a ``Generator``, nil when this kind has none.
    func shamGenerator() -> Generator? { sham().map { Generator($0) } }

    /// True when the kind declares a sham (its defaults have one).
    package static var declaresSham: Bool { defaults.sham() != nil }
}

extension ModifierKind {
    /// Replaces `sound`'s value by its sham when it is set and has one; true when it did.
    package static func applySham(to sound: inout Sound) -> Bool {
        guard let value = sound[keyPath: slot], let sham = sham(value) else { return false }
        sound[keyPath: slot] = sham
        return true
    }

    /// True when `sound` has this modifier.
    static func isSet(in sound: Sound) -> Bool { sound[keyPath: slot] != nil }
}

extension ParameterID {
    /// A sound's sham twin (`"sham": true`, `--sham`).
    package static let sham = ParameterID("sham", name: "sham")
}

extension Parameter {
    package static let sham = Parameter(.sham, note: "on or off")
}

import ShadesDSP

/// A generator of a ``Sound``: a source and its own parameters (duration, rate, level … are the
/// ``RenderRequest``'s). Each kind is described once, in its own file under Sound/Generators
/// (`GeneratorKind`), and made with that file's static function, e.g. ``tone(frequencyHz:)``.
public struct Generator: Sendable, Equatable {
    /// The kind and its values.
    package let kind: any GeneratorKind

    package init(_ kind: some GeneratorKind) { self.kind = kind }

    public static func == (a: Generator, b: Generator) -> Bool { a.kind.isEqual(to: b.kind) }

    /// Every kind, in the order help lists their names. A new generator is added here.
    package static var kinds: [any GeneratorKind.Type] {
        [ColouredNoise.self, GreyNoise.self, SpeechNoise.self, HighToneNoise.self, VelvetNoise.self, Tone.self, NarrowBandNoise.self,
         BinauralBeat.self, IsochronicTone.self, FractalTones.self, CoordinatedResetPattern.self, SpectralRipple.self,
         TinnitusTone.self, TinnitusHiss.self, TinnitusPulse.self, TinnitusRoar.self, TinnitusCricket.self, BinnedNoise.self]
    }

    /// Every source name a generator has, in help's order.
    package static var sourceNames: [String] { kinds.flatMap { $0.names } }

    /// The kind named `name` (a source name or an alias), nil for none.
    package static func kind(named name: String) -> (any GeneratorKind.Type)? {
        kinds.first { $0.names.contains(name) || $0.aliases.contains(name) }
    }

    /// Reads generator `name` from `values` (a JSON object or a command line's options); nil when no
    /// generator has that name.
    package static func read(_ name: String, from values: some ParameterValues) throws(ShadesError) -> Generator? {
        guard let kind = kind(named: name) else { return nil }
        return try read(kind, name: kind.names.contains(name) ? name : kind.names[0], from: values)
    }

    private static func read<K: GeneratorKind>(_ kind: K.Type, name: String, from values: some ParameterValues) throws(ShadesError) -> Generator {
        Generator(try K.read(values, name: name))
    }

    /// The values, when the generator is of kind `K`.
    package func `as`<K: GeneratorKind>(_: K.Type) -> K? { kind as? K }

    /// The source name written for it.
    package var name: String { kind.name }

    /// Short text for comments and messages, e.g. "pink beta=1" or "tone frequency=6000Hz".
    package var summary: String { kind.summary }

    /// Whether a loop of it is synthesised over its whole length with its spectrum shaped exactly.
    var shapesLoopExactly: Bool { kind.shapesLoopExactly }
}

extension Generator: SoundSourceKind {
    /// The JSON form's keys: "source", then each field that applies.
    func encodeSource(into c: inout KeyedEncodingContainer<JSONKey>) throws { try kind.encodeFields(into: &c) }

    /// The kind's own checks (its descriptor's), then what holds for every generator: a length that
    /// carries it, notches in a loop only where the loop's spectrum is shaped exactly, notches for one ear
    /// only in stereo.
    func validate(in request: RenderRequest) throws(ShadesError) {
        try kind.validate(in: request)
        // The generator's own values first: a length too short for a tone of 1e15 s names the tone's length.
        let seconds = request.durationSeconds
        if seconds.isFinite, let (shortest, holding) = kind.shortest, shortest.isFinite, seconds < shortest * (1 - 1e-9) {
            throw ShadesError(.duration, .other("is too short for this sound"), value: .number(seconds, .seconds),
                              allowed: AllowedValues(range: .atLeast(shortest, unit: .seconds), note: holding))
        }
        guard let notches = request.notches else { return }
        let centres = notches.map { "\(formatNumber($0.centreHz)) Hz" }.joined(separator: ", ")
        if request.loop, !shapesLoopExactly {
            throw ShadesError(parameter: .notchCentre, value: centres, problem: "cannot be combined with loop for this source",
                              allowed: "notched loops of noise colours (shaped in the loop's own spectrum)")
        }
        if notches.contains(where: { $0.ears != .both }), request.resolvedLayout != .stereo {
            throw ShadesError(parameter: .notchCentre, value: centres,
                              problem: "has notches for one ear in a \(request.resolvedLayout.rawValue) sound",
                              allowed: "notches for one ear in stereo (independent ears) only")
        }
    }

    /// The flags of every kind's fields and the source names each applies to, in help's order. Made once:
    /// every command-line parse reads it for each flag.
    package static let flags: [(flag: String, parameter: ParameterID, sources: [String])] = {
        var rows: [(flag: String, parameter: ParameterID, sources: [String])] = []
        for kind in kinds {
            for (flag, parameter, sources) in kind.flagRows {
                if let i = rows.firstIndex(where: { $0.flag == flag }) { rows[i].sources += sources } else { rows.append((flag, parameter, sources)) }
            }
        }
        return rows
    }()

    /// The kinds made at another level than −20 dBFS by default, for help: "-30 for ripple".
    package static var levelNotes: String {
        kinds.filter { $0.defaultLevelDBFS != Parameter.level.defaultValue! }
            .map { "\(formatNumber($0.defaultLevelDBFS)) for \($0.names.joined(separator: ", "))" }.joined(separator: ", ")
    }

    /// The help of `flag`: each kind's sentence for it, after the sources it applies to.
    package static func help(forFlag flag: String) -> String {
        helpByFlag[flag] ?? "."
    }

    /// ``help(forFlag:)`` of every flag in ``flags``, made once, in one walk over each kind's fields.
    private static let helpByFlag: [String: String] = {
        var sentences: [String: [String]] = [:]
        for kind in kinds {
            for (flag, sentence) in kind.flagHelp { sentences[flag, default: []].append(sentence) }
        }
        return sentences.mapValues { $0.joined(separator: "; ") + "." }
    }()
}

extension GeneratorKind {
    /// Writes "source" and each field that applies to the JSON form.
    func encodeFields(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        try c.encode(name, forKey: "source")
        for field in Self.fields(for: name) { try field.write(self, into: &c) }
    }

    /// Each field's flag, parameter and the source names it applies to.
    package static var flagRows: [(String, ParameterID, [String])] {
        fields.filter { !$0.flag.isEmpty }.map { ($0.flag, $0.parameter.id, $0.names ?? names) }
    }

    /// Each field's parameter, JSON key, and whether it must be given.
    package static var keyRows: [(parameter: Parameter, key: String, required: Bool)] {
        fields.map { ($0.parameter, $0.key, $0.requiredAs != nil) }
    }

    /// The JSON keys of source `name` (one of ``names`` or an alias).
    static func keys(for name: String) -> [String] { fields(for: names.contains(name) ? name : names[0]).map(\.key) }

    /// Each field's flag and its sentence, "velvet: impulses per second, …", in the fields' order.
    static var flagHelp: [(flag: String, sentence: String)] {
        fields.filter { !$0.flag.isEmpty }.map { ($0.flag, "\(($0.names ?? names).joined(separator: ", ")): \($0.help)") }
    }
}

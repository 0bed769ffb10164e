import ShadesDSP

/// One modifier of a sound, described once: its key in the JSON form, its parameters (each a ``Parameter``
/// with its JSON key and command-line flag), how it is read from JSON and from the command line, how it is
/// checked at a request's rate, length and loop mode, and what it adds to the ``ModifierChain``. The JSON
/// reader and writer, the command line's options, validation and the chain all go through
/// ``Sound/modifierKinds``, in the chain's order; adding a modifier is one file and one entry there.
package protocol ModifierKind {
    /// What a sound holds of it (``Modulation``; a list of ``NotchSpec``).
    associatedtype Value: Sendable & Equatable & Encodable
    /// Its key in a sound's JSON object ("am").
    static var key: String { get }
    /// Where a sound holds it.
    static var slot: WritableKeyPath<Sound, Value?> { get }
    /// Its parameters: their JSON key paths inside a sound object ("am.rateHz") and their flags, for messages
    /// and help.
    static var parameters: [ModifierParameter] { get }
    /// The flags that ask for it (`--am`); its other flags refine it and need one of these. Empty: it has no
    /// options of its own (a spectral shape comes from `--audiogram`).
    static var baseFlags: [String] { get }
    /// Each of its flags' help, by flag ("am-depth": "modulation depth, 0 … 1 (default 1; with --am)").
    static var flagHelp: [String: String] { get }

    /// Reads it from its key in a sound's JSON `object`: nil when the key is absent.
    static func read(in object: JSONObjectReader) throws(ShadesError) -> Value?
    /// Reads it from the options typed on a command line: nil when none of its ``baseFlags`` is given.
    static func read(commandLine values: CommandLineValues) throws(ShadesError) -> Value?
    /// Checks it at `request`'s rate, length and loop mode (on values: no DSP object is built).
    static func validate(_ value: Value, in request: RenderRequest) throws(ShadesError)
    /// Adds its stage to `chain` (nothing for one applied elsewhere: the swell with a layer's gain).
    static func apply(_ value: Value, to chain: inout ModifierChain) throws(ShadesError)
    /// Its sham, declared beside it (``Sound/shamTwin()``): the value with its therapeutic frequency or
    /// modulation moved out of the therapeutic range. Nil (the default) when it is not therapeutic: a sham
    /// keeps it as it is.
    static func sham(_ value: Value) -> Value?
    /// True when it declares a sham (``sham(_:)`` moves it); false by default.
    static var declaresSham: Bool { get }
}

extension ModifierKind {
    package static var baseFlags: [String] { [] }
    package static var flagHelp: [String: String] { [:] }
    package static func read(commandLine values: CommandLineValues) throws(ShadesError) -> Value? { nil }
    package static func validate(_ value: Value, in request: RenderRequest) throws(ShadesError) {}
    package static func apply(_ value: Value, to chain: inout ModifierChain) throws(ShadesError) {}
    package static func sham(_ value: Value) -> Value? { nil }
    package static var declaresSham: Bool { false }

    /// The flags of its parameters that are on the command line, base flags first.
    package static var flags: [String] {
        var seen = Set<String>()
        return (baseFlags + parameters.compactMap(\.flag)).filter { seen.insert($0).inserted }
    }

    /// Reads it from `object`'s key into `sound` when the key is there.
    static func read(from object: JSONObjectReader, into sound: inout Sound) throws(ShadesError) {
        if let value = try read(in: object) { sound[keyPath: slot] = value }
    }

    /// Reads it from the options typed into `sound` when they ask for it.
    package static func read(commandLine values: CommandLineValues, into sound: inout Sound) throws(ShadesError) {
        if let value = try read(commandLine: values) { sound[keyPath: slot] = value }
    }

    /// Writes `sound`'s value under its key when set.
    static func encode(_ sound: Sound, into c: inout KeyedEncodingContainer<JSONKey>) throws {
        try c.encodeIfPresent(sound[keyPath: slot], forKey: JSONKey(stringValue: key))
    }

    /// Checks `request`'s sound's value when set.
    static func validate(_ sound: Sound, in request: RenderRequest) throws(ShadesError) {
        if let value = sound[keyPath: slot] { try validate(value, in: request) }
    }

    /// Adds `sound`'s value, when set, to `chain`.
    static func apply(_ sound: Sound, to chain: inout ModifierChain) throws(ShadesError) {
        if let value = sound[keyPath: slot] { try apply(value, to: &chain) }
    }
}

/// A modifier whose JSON form is one object of fields (``ParameterField``) of an `Item` (a list of items for
/// the notches), read over ``defaults``; the command line gives the same fields by their flags once a base
/// flag is given.
package protocol FieldModifierKind: ModifierKind {
    /// What the fields are read into: the value, or one item of it.
    associatedtype Item
    static var fields: [ParameterField<Item>] { get }
    /// Every field at its default; a required one (``ParameterField/requiredAs``) at a placeholder.
    static var defaults: Item { get }
    /// Flags that are not a field's, each for the whole modifier (`--pulse ON/OFF`, `--fade`), with help.
    static var otherFlags: [(parameter: ParameterID, flag: String, help: String)] { get }
}

extension FieldModifierKind {
    package static var otherFlags: [(parameter: ParameterID, flag: String, help: String)] { [] }
    package static var baseFlags: [String] { [fields[0].flag] }

    package static var parameters: [ModifierParameter] {
        otherFlags.map { ModifierParameter($0.parameter, key: key, flag: $0.flag) }
            + fields.map { ModifierParameter($0.parameter.id, key: "\(key).\($0.key)", flag: $0.flag.isEmpty ? nil : $0.flag) }
    }

    package static var flagHelp: [String: String] {
        Dictionary((fields.filter { !$0.flag.isEmpty }.map { ($0.flag, $0.help) } + otherFlags.map { ($0.flag, $0.help) })) { first, _ in first }
    }

    /// Reads the fields typed by their flags into `item`.
    static func readFlags(_ values: CommandLineValues, into item: inout Item) throws(ShadesError) {
        for field in fields where !field.flag.isEmpty { _ = try field.readValue(&item, values, field) }
    }

    /// True when one of its base flags is given.
    static func isAsked(by values: CommandLineValues) -> Bool { baseFlags.contains { values.texts[$0] != nil } }
}

extension FieldModifierKind where Item == Value {
    package static func read(in object: JSONObjectReader) throws(ShadesError) -> Value? {
        guard let value = object[key] else { return nil }
        return try readObject(value, at: object.path(of: key), reader: object.reader, what: key, fields: fields, defaults: defaults)
    }

    package static func read(commandLine values: CommandLineValues) throws(ShadesError) -> Value? {
        guard isAsked(by: values) else { return nil }
        var value = defaults
        try readFlags(values, into: &value)
        return value
    }
}

/// Reads one JSON object of `fields` at `path` over `defaults`; a required field that is absent is refused.
func readObject<Value>(_ json: JSONValue, at path: String, reader: JSONTreeReader, what: String,
                       fields: [ParameterField<Value>], defaults: Value) throws(ShadesError) -> Value {
    let o = try reader.object(json, path: path, what: what, keys: fields.map(\.key))
    var value = defaults
    for field in fields where try !field.readValue(&value, o, field) && field.requiredAs != nil {
        throw o.missing(field.key)
    }
    return value
}

/// A parameter of a modifier as the JSON form and the command line name it.
package struct ModifierParameter: Sendable {
    package let parameter: ParameterID
    /// Its key path inside a sound object: "am.rateHz"; "pulses" for the whole.
    package let key: String
    /// Its flag without dashes, nil when the command line has none.
    package let flag: String?

    package init(_ parameter: ParameterID, key: String, flag: String? = nil) {
        (self.parameter, self.key, self.flag) = (parameter, key, flag)
    }
}

extension Sound {
    /// The modifiers, in the chain's order: frequency modulation (made by the generator) → notches → spectral shape → amplitude modulation → random
    /// modulation → surf (the *sustained* sound, what the level refers to) → pulses → fades; the swell is applied with the sound's gain; the
    /// channels and seed choose how it is made. The JSON form writes them in this order.
    package static var modifierKinds: [any ModifierKind.Type] {
        [FrequencyModulationModifier.self, NotchModifier.self, ShapeModifier.self, AmplitudeModulationModifier.self, RandomModulationModifier.self, SurfModifier.self,
         PulsesModifier.self, FadesModifier.self, SwellModifier.self, ChannelsModifier.self, SeedModifier.self]
    }

    /// The modifier that has `flag` and its help for it.
    package static func modifier(withFlag flag: String) -> (kind: any ModifierKind.Type, help: String)? {
        modifierByFlag[flag]
    }

    /// Each modifier flag's modifier and help, made once: every command-line parse asks for each flag.
    // Immutable once made; `any ModifierKind.Type` is not Sendable, so the compiler cannot see that.
    nonisolated(unsafe) private static let modifierByFlag: [String: (kind: any ModifierKind.Type, help: String)] = {
        var byFlag: [String: (kind: any ModifierKind.Type, help: String)] = [:]
        for kind in modifierKinds { for (flag, help) in kind.flagHelp where byFlag[flag] == nil { byFlag[flag] = (kind, help) } }
        return byFlag
    }()
}

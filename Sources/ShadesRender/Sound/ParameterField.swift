import ShadesDSP

/// One parameter of a generator or a modifier: its definition (identity, unit, range, default: a
/// ``Parameter``), its key in the JSON form, its command-line flag (empty: none) and help, and how it is read
/// into and written from the value. ``GeneratorKind/read(_:name:)`` and ``FieldModifierKind`` read every field.
package struct ParameterField<Root> {
    /// The parameter's definition: what messages name and check.
    package let parameter: Parameter
    /// Its key in the JSON form ("density").
    package let key: String
    /// Its command-line flag without the dashes ("density").
    package let flag: String
    /// What it is, for the flag's help ("impulses per second").
    package let help: String
    /// The source names it applies to; nil: all of the kind's.
    package let names: [String]?
    /// What must be given when it is required ("a frequency"); nil when it has a default or may be absent.
    package let requiredAs: String?
    /// Reads the value into the value when `values` give it; throws when it does not parse.
    let readValue: (inout Root, any ParameterValues, ParameterField<Root>) throws(ShadesError) -> Bool
    /// Writes the value to the JSON form (or nothing, for an absent or default value).
    let writeValue: (Root, inout KeyedEncodingContainer<JSONKey>, String) throws -> Void

    /// True when it applies to source `name`.
    package func applies(to name: String) -> Bool { names?.contains(name) ?? true }

    /// Reads the field from `values` into `value`; refuses a required field that is absent.
    func read(_ value: inout Root, _ values: any ParameterValues, _ name: String) throws(ShadesError) {
        if try !readValue(&value, values, self), let requiredAs {
            throw values.missing(self, source: name, needs: requiredAs)
        }
    }

    /// Writes the field into a JSON object.
    func write(_ value: Root, into c: inout KeyedEncodingContainer<JSONKey>) throws { try writeValue(value, &c, key) }

    private init(_ parameter: Parameter, key: String, flag: String?, help: String, names: [String]?, requiredAs: String?,
                 read: @escaping (inout Root, any ParameterValues, ParameterField<Root>) throws(ShadesError) -> Bool,
                 write: @escaping (Root, inout KeyedEncodingContainer<JSONKey>, String) throws -> Void) {
        (self.parameter, self.key, self.flag, self.help, self.names, self.requiredAs) = (parameter, key, flag ?? key, help, names, requiredAs)
        (readValue, writeValue) = (read, write)
    }

    /// A field at `keyPath`: `read` gives its value from a source of values (nil when absent), `write` puts it
    /// into the JSON form.
    private static func field<Value>(
        _ keyPath: WritableKeyPath<Root, Value>, _ parameter: Parameter, key: String, flag: String?, help: String,
        names: [String]? = nil, requiredAs: String? = nil,
        read: @escaping (any ParameterValues, ParameterField<Root>) throws(ShadesError) -> Value?,
        write: @escaping (Value, inout KeyedEncodingContainer<JSONKey>, JSONKey) throws -> Void) -> Self {
        Self(parameter, key: key, flag: flag, help: help, names: names, requiredAs: requiredAs,
             read: { value, values, field throws(ShadesError) in
                 guard let read = try read(values, field) else { return false }
                 value[keyPath: keyPath] = read
                 return true
             },
             write: { value, c, key in try write(value[keyPath: keyPath], &c, JSONKey(stringValue: key)) })
    }

    /// A number in `form` (Hz, s, dB or plain), always written.
    package static func number(_ keyPath: WritableKeyPath<Root, Double>, _ parameter: Parameter, key: String, flag: String? = nil,
                               form: ValueForm = .plain, help: String, names: [String]? = nil, requiredAs: String? = nil) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help, names: names, requiredAs: requiredAs,
              read: { values, field throws(ShadesError) in try values.number(field, form: form) },
              write: { number, c, key in try c.encode(number, forKey: key) })
    }

    /// The required `frequency` (Hz) several generators take: a tone's, a band's centre, the tinnitus
    /// frequency; `requiredAs` names it when it is missing.
    package static func frequency(_ keyPath: WritableKeyPath<Root, Double>, help: String, requiredAs: String) -> Self {
        number(keyPath, .frequency, key: "frequency", form: .hertz, help: help, requiredAs: requiredAs)
    }

    /// A number in `form` that may be absent (its default follows from others), written when present.
    package static func optionalNumber(_ keyPath: WritableKeyPath<Root, Double?>, _ parameter: Parameter, key: String,
                                       flag: String? = nil, form: ValueForm = .plain, help: String) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help,
              read: { values, field throws(ShadesError) in try values.number(field, form: form).map { Optional($0) } },
              write: { number, c, key in try c.encodeIfPresent(number, forKey: key) })
    }

    /// A whole number in the parameter's range, always written.
    package static func count(_ keyPath: WritableKeyPath<Root, Int>, _ parameter: Parameter, key: String, flag: String? = nil,
                              help: String) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help,
              read: { values, field throws(ShadesError) in try values.count(field) },
              write: { count, c, key in try c.encode(count, forKey: key) })
    }

    /// A whole number in the parameter's range that may be absent, written when present.
    package static func optionalCount(_ keyPath: WritableKeyPath<Root, Int?>, _ parameter: Parameter, key: String,
                                      flag: String? = nil, help: String) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help,
              read: { values, field throws(ShadesError) in try values.count(field).map { Optional($0) } },
              write: { count, c, key in try c.encodeIfPresent(count, forKey: key) })
    }

    /// One of a `String`-backed enumeration's values; written unless it is `omitted`.
    package static func choice<Choice: RawRepresentable & CaseIterable & Encodable & Equatable>(
        _ keyPath: WritableKeyPath<Root, Choice>, _ parameter: Parameter, key: String, flag: String? = nil, help: String,
        names: [String]? = nil, omitted: Choice? = nil) -> Self where Choice.RawValue == String {
        field(keyPath, parameter, key: key, flag: flag, help: help, names: names,
              read: { values, field throws(ShadesError) in
                  try values.choice(field, among: Choice.allCases.map(\.rawValue)).flatMap(Choice.init(rawValue:))
              },
              write: { choice, c, key in if choice != omitted { try c.encode(choice, forKey: key) } })
    }

    /// A list of gains in dB, one per band or tone; written when present.
    package static func gains(_ keyPath: WritableKeyPath<Root, [Double]?>, _ parameter: Parameter, key: String, flag: String? = nil,
                              help: String) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help,
              read: { values, field throws(ShadesError) in try values.gains(field).map { Optional($0) } },
              write: { gains, c, key in try c.encodeIfPresent(gains, forKey: key) })
    }

    /// A switch, off unless given; written only when on.
    package static func toggle(_ keyPath: WritableKeyPath<Root, Bool>, _ parameter: Parameter, key: String, flag: String? = nil,
                               help: String) -> Self {
        field(keyPath, parameter, key: key, flag: flag, help: help,
              read: { values, field throws(ShadesError) in try values.isOn(field) },
              write: { on, c, key in if on { try c.encode(true, forKey: key) } })
    }
}

/// How a number is typed: a frequency ("6kHz"), a duration ("5ms"), a level or gain ("-3dB") or plain.
package enum ValueForm: Sendable {
    case hertz, seconds, decibels, plain
}

/// Where a generator's values are read from: a JSON object (``JSONObjectReader``) or the options typed on a
/// command line (``CommandLineValues``). Each reads a field by its key or its flag, in the form typed
/// there, and names the field its own way in errors.
package protocol ParameterValues {
    /// True when `field` is given.
    func isGiven<K>(_ field: ParameterField<K>) -> Bool
    func number<K>(_ field: ParameterField<K>, form: ValueForm) throws(ShadesError) -> Double?
    func count<K>(_ field: ParameterField<K>) throws(ShadesError) -> Int?
    func choice<K>(_ field: ParameterField<K>, among allowed: [String]) throws(ShadesError) -> String?
    func gains<K>(_ field: ParameterField<K>) throws(ShadesError) -> [Double]?
    func isOn<K>(_ field: ParameterField<K>) throws(ShadesError) -> Bool?
    /// `error` about `field`'s value, placed where the value was given.
    func located<K>(_ error: ShadesError, at field: ParameterField<K>) -> ShadesError
    /// The error for a required `field` that is absent: source `source` needs it as `needs` ("a frequency").
    func missing<K>(_ field: ParameterField<K>, source: String, needs: String) -> ShadesError
}

extension JSONObjectReader: ParameterValues {
    package func isGiven<K>(_ field: ParameterField<K>) -> Bool { self[field.key] != nil }

    package func number<K>(_ field: ParameterField<K>, form: ValueForm) throws(ShadesError) -> Double? {
        try number(field.key, form: form == .hertz ? .hertz : .plain)
    }

    package func count<K>(_ field: ParameterField<K>) throws(ShadesError) -> Int? { try integer(field.key) }

    package func choice<K>(_ field: ParameterField<K>, among allowed: [String]) throws(ShadesError) -> String? {
        try choice(field.key, allowed)
    }

    package func gains<K>(_ field: ParameterField<K>) throws(ShadesError) -> [Double]? { try numbers(field.key) }

    package func isOn<K>(_ field: ParameterField<K>) throws(ShadesError) -> Bool? { try bool(field.key) }

    package func located<K>(_ error: ShadesError, at field: ParameterField<K>) -> ShadesError {
        reader.error(location(of: field.key), "\(error)")
    }

    package func missing<K>(_ field: ParameterField<K>, source: String, needs: String) -> ShadesError {
        missing(field.key, because: "source '\(source)' needs \(needs)")
    }
}

/// The options typed on a command line for a generator: each flag (without dashes) and its text; a switch
/// given has the text "true".
package struct CommandLineValues: ParameterValues {
    package let texts: [String: String]

    package init(_ texts: [String: String]) { self.texts = texts }

    package func isGiven<K>(_ field: ParameterField<K>) -> Bool { texts[field.flag] != nil }

    package func number<K>(_ field: ParameterField<K>, form: ValueForm) throws(ShadesError) -> Double? {
        guard let text = texts[field.flag] else { return nil }
        let id = field.parameter.id
        switch form {
        case .hertz: return try ValueParsing.hertz(text, parameter: id)
        case .seconds: return try ValueParsing.seconds(text, parameter: id)
        case .decibels: return try ValueParsing.decibels(text, parameter: id)
        case .plain: return try ValueParsing.number(text, parameter: id)
        }
    }

    package func count<K>(_ field: ParameterField<K>) throws(ShadesError) -> Int? {
        try texts[field.flag].map { (text: String) throws(ShadesError) in try ValueParsing.count(text, field.parameter) }
    }

    package func choice<K>(_ field: ParameterField<K>, among allowed: [String]) throws(ShadesError) -> String? {
        guard let text = texts[field.flag] else { return nil }
        guard allowed.contains(text.lowercased()) else {
            throw ShadesError(field.parameter.id, .other("is not a \(field.parameter.name)"), value: .given(text),
                              allowed: AllowedValues(note: allowed.joined(separator: ", ")))
        }
        return text.lowercased()
    }

    package func gains<K>(_ field: ParameterField<K>) throws(ShadesError) -> [Double]? {
        guard let text = texts[field.flag] else { return nil }
        var gains: [Double] = []
        for part in text.split(separator: ",") {
            gains.append(try ValueParsing.decibels(String(part.filter { $0 != " " }), parameter: field.parameter.id))
        }
        return gains
    }

    package func isOn<K>(_ field: ParameterField<K>) throws(ShadesError) -> Bool? { texts[field.flag].map { $0 == "true" } }

    package func located<K>(_ error: ShadesError, at field: ParameterField<K>) -> ShadesError { error }

    package func missing<K>(_ field: ParameterField<K>, source: String, needs: String) -> ShadesError {
        .usage("\(source) needs --\(field.flag) (\(needs))")
    }
}

import ShadesDSP

/// The `notch` modifier: a list of notches (``NotchSpec``: Okamoto 2010; Stein 2016 with edge boosts), each
/// may be one ear's: `[ { "centreHz": 6000, "widthOctaves": 0.5 } ]`; on the command line one notch, `--notch
/// 6kHz --notch-width 0.5` (or the generator-free `--width`). Cut by zero-phase FIR filters (``NotchDesign``):
/// the graph designs them (``designs(_:channelCount:sampleRate:)``), a generator synthesised whole takes them into
/// its spectrum, and ``ModifierChain`` applies what is left first.
package enum NotchModifier: FieldModifierKind {
    package typealias Value = [NotchSpec]
    package typealias Item = NotchSpec
    package static let key = "notch"
    package static var slot: WritableKeyPath<Sound, [NotchSpec]?> { \.notches }
    /// One notch's fields.
    package static var fields: [ParameterField<NotchSpec>] {
        [.number(\.centreHz, .notchCentre, key: "centreHz", flag: "notch", form: .hertz,
                 help: "Cut a notch centred here (notched noise: Okamoto 2010), e.g. 6kHz.", requiredAs: "a centre frequency"),
         .number(\.widthOctaves, .notchWidth, key: "widthOctaves", flag: "notch-width",
                 help: "Notch width in octaves (0 … 3; default \(formatNumber(Parameter.notchWidth.defaultValue!)) as in Okamoto 2010, 0.5 in Stein 2016; with --notch)."),
         .number(\.edgeBoostDB, .edgeBoost, key: "edgeBoostDB", flag: "edge-boost", form: .decibels,
                 help: "Raise the bands beside the notch by this gain (Stein 2016: 20dB)."),
         .number(\.edgeWidthOctaves, .edgeWidth, key: "edgeWidthOctaves", flag: "edge-width",
                 help: "Width of each boosted band beside the notch, in octaves (default \(formatNumber(Parameter.edgeWidth.defaultValue!)); with --edge-boost)."),
         .choice(\.ears, .ears, key: "ears", flag: "", help: "")]
    }

    /// A notch with every field at its default (the centre a placeholder: it is required).
    package static var defaults: NotchSpec {
        NotchSpec(centreHz: 0, widthOctaves: Parameter.notchWidth.defaultValue!, edgeBoostDB: Parameter.edgeBoost.defaultValue!,
                  edgeWidthOctaves: Parameter.edgeWidth.defaultValue!)
    }

    package static func read(in object: JSONObjectReader) throws(ShadesError) -> [NotchSpec]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value.kind else {
            throw object.reader.error(value.location, "'notch' must be an array of notches, not \(value.kind.name)")
        }
        var notches: [NotchSpec] = []
        for (index, item) in items.enumerated() {
            notches.append(try readObject(item, at: object.path(of: key) + "[\(index)]", reader: object.reader, what: "a notch",
                                          fields: fields, defaults: defaults))
        }
        return notches
    }

    /// One notch: `--notch`, its width from `--notch-width` or else `--width` (given here only when the
    /// source's generator does not read it).
    package static func read(commandLine values: CommandLineValues) throws(ShadesError) -> [NotchSpec]? {
        guard isAsked(by: values) else { return nil }
        var texts = values.texts
        if texts["notch-width"] == nil { texts["notch-width"] = texts["width"] }
        var notch = defaults
        try readFlags(CommandLineValues(texts), into: &notch)
        return [notch]
    }

    /// Sham: each notch moved away from F by its width (boosted edges included) rounded up plus 1.5 octaves
    /// (``ShamFrequency``): a one-octave notch at 6 kHz → 1,061 Hz (750 … 1,500 Hz); widths, boosts and ears
    /// kept. Okamoto 2010's placebo group heard a "moving" notch that did not cover the tinnitus frequency;
    /// a file has one fixed notch, so it is moved once, far enough that it never covers the active band.
    package static func sham(_ value: [NotchSpec]) -> [NotchSpec]? {
        value.isEmpty ? nil : value.map { notch in
            var sham = notch
            let width = notch.widthOctaves + (notch.edgeBoostDB > 0 ? 2 * notch.edgeWidthOctaves : 0)
            sham.centreHz = ShamFrequency.moved(notch.centreHz, widthOctaves: width)
            return sham
        }
    }
    package static let declaresSham = true

    package static func validate(_ value: [NotchSpec], in request: RenderRequest) throws(ShadesError) {
        if !value.isEmpty { try NotchDesign.validate(notches: value, sampleRate: request.sampleRate) }
    }


    /// One design per channel (or mono signal) of `channelCount` for `notches`, valid at `sampleRate`: a notch
    /// for one ear goes to that channel of a stereo sound, every channel of another; channels with the same
    /// notches share a design.
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

extension Parameter {
    /// The ears a notch (or a layer of a mix) is for.
    package static let ears = Parameter(.ears, note: "both, left or right")
}

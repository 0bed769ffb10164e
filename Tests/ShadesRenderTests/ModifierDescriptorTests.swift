import Testing
import ShadesDSP
import ShadesRender

/// Every modifier's descriptor (``ModifierKind``): the one place its key, parameters, flags, JSON form,
/// checks and chain stage are written, so these hold for every modifier, including one added later.
@Suite struct ModifierDescriptorTests {
    /// A sound with every modifier set away from its defaults.
    static let everything: Sound = {
        var sound = Sound(
            .generator(.noise(colour: .pink)),
            notches: [NotchSpec(centreHz: 4000, widthOctaves: 0.5, edgeBoostDB: 20, edgeWidthOctaves: 0.25, ears: .left)],
            modulation: Modulation(rateHz: 8, depth: 0.5, startPhase: 1, keep: .peak),
            pulses: Pulses(onSeconds: 0.3, offSeconds: 0.1, rampSeconds: 0.01, count: 4),
            fades: Fades(inSeconds: 0.1, outSeconds: 0.2, endSeconds: 1.5),
            swell: Swell(periodSeconds: 8, depth: 0.7), channels: .stereo, seed: 9,
            shape: SpectralShape(frequenciesHz: [1000, 4000], gainsDB: [0, 10], rule: "test"))
        sound.randomModulation = RandomAmplitudeModulation(bandwidthHz: 0.3, depthDB: 6)
        sound.frequencyModulation = FrequencyModulation(rateHz: 4, depthCents: 50, shape: .random)
        sound.surf = Surf(periodSeconds: 12, riseSeconds: 2, decaySeconds: 1, depthDB: 20, shape: .ramped, intervals: .periodic)
        return sound
    }()

    @Test func keysAndFlagsAreUniqueAndEveryParameterHasAJSONKey() {
        let keys = Sound.modifierKinds.map { $0.key }
        #expect(Set(keys).count == keys.count)
        let flags = Sound.modifierKinds.flatMap { $0.flags }
        #expect(Set(flags).count == flags.count)
        // A flag is a generator's and a modifier's only where the source decides (`--ramp`: isochronic's or
        // the pulses'); none other is shared.
        #expect(Set(flags).intersection(Generator.flags.map(\.flag)) == ["ramp"])
        for kind in Sound.modifierKinds {
            for parameter in kind.parameters {
                #expect(parameter.key == kind.key || parameter.key.hasPrefix(kind.key + "."), "\(parameter.key)")
            }
            // A flag that refines a modifier needs one that asks for it.
            #expect(kind.flags.isEmpty || !kind.baseFlags.isEmpty, "\(kind.key)")
            for flag in kind.flags { #expect(kind.flagHelp[flag]?.isEmpty == false, "--\(flag) has help") }
        }
    }

    @Test func everyModifierReadsBackFromItsJSON() throws {
        let json = Self.everything.compactJSON
        for kind in Sound.modifierKinds { #expect(json.contains("\"\(kind.key)\":"), "\(kind.key)") }
        #expect(try Sound.parse(json: Array(json.utf8), file: "s.json") == Self.everything)
    }

    /// The public initialisers' defaults are the parameters' (each default is defined once, in `Parameter`).
    @Test func publicDefaultsAreTheParametersDefaults() {
        let am = Modulation()
        #expect(am.rateHz == Parameter.amRate.defaultValue && am.depth == Parameter.amDepth.defaultValue
                && am.startPhase == Parameter.amPhase.defaultValue)
        let pulses = Pulses()
        #expect(pulses.onSeconds == Parameter.pulseOn.defaultValue && pulses.offSeconds == Parameter.pulseOff.defaultValue
                && pulses.rampSeconds == Parameter.ramp.defaultValue)
        #expect(Swell(periodSeconds: 8).depth == Parameter.swellDepth.defaultValue)
        #expect(RandomAmplitudeModulation(bandwidthHz: 1).depthDB == Parameter.randomAMDepth.defaultValue)
        let fm = FrequencyModulation()
        #expect(fm.rateHz == Parameter.fmRate.defaultValue && fm.depthCents == Parameter.fmDepth.defaultValue && fm.shape == .sine)
        let surf = Surf()
        #expect(surf.periodSeconds == Parameter.surfPeriod.defaultValue && surf.riseSeconds == Parameter.surfRise.defaultValue
                && surf.decaySeconds == Parameter.surfDecay.defaultValue && surf.depthDB == Parameter.surfDepth.defaultValue)
        let notch = NotchSpec(centreHz: 1000)
        #expect(notch.widthOctaves == Parameter.notchWidth.defaultValue && notch.edgeBoostDB == Parameter.edgeBoost.defaultValue
                && notch.edgeWidthOctaves == Parameter.edgeWidth.defaultValue)
    }

    /// A JSON object with only its required keys takes every other parameter's default.
    @Test func absentKeysTakeTheParametersDefaults() throws {
        let sound = try Sound.parse(json: Array(#"{"source":"pink","am":{},"notch":[{"centreHz":4000}],"pulses":{},"fades":{},"swell":{"periodSeconds":8}}"#.utf8),
                                    file: "s.json")
        #expect(sound.modulation == Modulation())
        #expect(sound.notches == [NotchSpec(centreHz: 4000)])
        #expect(sound.pulses == Pulses())
        #expect(sound.fades == Fades(inSeconds: 0, outSeconds: 0))
        #expect(sound.swell == Swell(periodSeconds: 8))
    }

    /// A required key that is absent is named, at its object.
    @Test(arguments: [(#"{"source":"pink","notch":[{}]}"#, "missing key 'centreHz' in a notch"),
                      (#"{"source":"pink","swell":{}}"#, "missing key 'periodSeconds' in swell"),
                      (#"{"source":"pink","am":{"rate":10}}"#, "rate")])
    func aMissingOrUnknownKeyIsNamed(json: String, message: String) {
        #expect { try Sound.parse(json: Array(json.utf8), file: "s.json") } throws: { error in
            "\(error)".contains(message)
        }
    }
}

import Testing
import ShadesAnalysis
import ShadesDSP

/// Parameters defined as data: each definition's check, and every range check of the generators,
/// modifiers and filters, throws an error whose fields are the identity, the value and the range.
@Suite struct ParameterTests {
    /// A value just outside `range`: past the upper bound, else below the lower one, else not finite.
    static func outside(_ range: ParameterRange) -> Double {
        if let upper = range.upper { return upper.value + 1 }
        if let lower = range.lower { return lower.value - 1 }
        return .infinity
    }

    @Test func everyDefinitionChecksItsRangeAndReportsItAsFields() {
        let ranged = Parameter.all.filter { $0.range != nil }
        #expect(ranged.count >= 30)
        for parameter in ranged {
            let range = parameter.range!
            let bad = Self.outside(range)
            do throws(ShadesError) {
                try parameter.check(bad)
                Issue.record("\(parameter.name) accepted \(bad)")
            } catch {
                #expect(error.kind == .parameter, "\(parameter.name)")
                #expect(error.parameter == parameter.id, "\(parameter.name)")
                #expect(error.value == .number(bad, parameter.unit), "\(parameter.name)")
                #expect(error.problem == .outOfRange, "\(parameter.name)")
                #expect(error.allowedValues?.range == range, "\(parameter.name)")
                #expect(error.description.hasPrefix(parameter.name + " "), "\(error)")
            }
            #expect(throws: ShadesError.self, "\(parameter.name) NaN") { try parameter.check(.nan) }
            if let value = parameter.defaultValue {
                #expect(throws: Never.self, "\(parameter.name) default") { try parameter.check(value) }
            }
        }
        #expect(Set(Parameter.all.map(\.id)).count == Parameter.all.count)
        #expect(Set(ParameterID.known).count == ParameterID.known.count)
        #expect(Parameter.all.allSatisfy { ParameterID.known.contains($0.id) })
    }

    /// Names are words for people, identities never a command-line spelling.
    @Test func identitiesAreNotFlagSpellings() {
        for id in ParameterID.known {
            #expect(!id.rawValue.contains("-") && !id.rawValue.contains(" "), "\(id)")
            #expect(!id.name.hasPrefix("-") && !id.name.isEmpty, "\(id)")
        }
    }

    @Test func rangesReadAsText() {
        #expect("\(ParameterRange(0...1))" == "0 … 1")
        #expect("\(ParameterRange(0.1...10, unit: .hertz))" == "0.1 … 10 Hz")
        #expect("\(ParameterRange.above(0, atMost: 4, unit: .octaves))" == "above 0 and at most 4 octaves")
        #expect("\(ParameterRange.above(0, below: 24_000, unit: .hertz))" == "above 0 and below 24000 Hz")
        #expect("\(ParameterRange.from(29.9661, below: 16_018.07, unit: .hertz))" == "from 29.97 to below 16018.1 Hz")
        #expect("\(ParameterRange.atMost(0, unit: .dBFS))" == "at most 0 dBFS")
        #expect("\(ParameterRange.atLeast(1))" == "at least 1")
        #expect("\(ParameterRange(0...0.1, unit: .seconds))" == "0 … 100 ms")
        #expect("\(ParameterRange.finite(unit: .radians))" == "any finite value in rad")
        #expect("\(ParameterRange.wholeSampleRates)" == "8000 … 192000 Hz (whole numbers)")
        #expect(ParameterRange.wholeSampleRates.contains(44_100) && !ParameterRange.wholeSampleRates.contains(44_100.5))
        #expect(!ParameterRange.above(0, below: 1).contains(0) && !ParameterRange.above(0, below: 1).contains(1))
        #expect(ParameterRange(0...1).contains(0) && ParameterRange(0...1).contains(1) && !ParameterRange(0...1).contains(.nan))
        #expect("\(ParameterValue.number(0.025, .seconds))" == "25 ms" && "\(ParameterValue.number(90, .seconds))" == "90 s")
        #expect("\(ParameterValue.given("6 kHz"))" == "'6 kHz'" && "\(ParameterValue.number(30_000, .hertz))" == "30000 Hz")
    }

    /// The definitions' defaults are the types' defaults.
    @Test func definitionsHoldTheTypesDefaults() throws {
        let carrier = SilenceSource(sampleRate: 48_000)
        let am = try AmplitudeModulatedSource(carrier: carrier)
        #expect(am.rateHz == Parameter.amRate.defaultValue && am.depth == Parameter.amDepth.defaultValue)
        #expect(am.startPhase == Parameter.amPhase.defaultValue)
        let pulsed = try PulsedSource(source: carrier)
        #expect(pulsed.onSeconds == Parameter.pulseOn.defaultValue && pulsed.offSeconds == Parameter.pulseOff.defaultValue)
        #expect(pulsed.rampSeconds == Parameter.ramp.defaultValue)
        let cr = CoordinatedResetPattern(tinnitusFrequencyHz: 4_000)
        #expect(cr.cycleRateHz == Parameter.cycleRate.defaultValue && cr.rampSeconds == Parameter.toneRamp.defaultValue)
        #expect(Double(cr.onCycles) == Parameter.onCycles.defaultValue && Double(cr.offCycles) == Parameter.offCycles.defaultValue)
        let notch = NotchSpec(centreHz: 1_000)
        #expect(notch.widthOctaves == Parameter.notchWidth.defaultValue && notch.edgeBoostDB == Parameter.edgeBoost.defaultValue)
        #expect(notch.edgeWidthOctaves == Parameter.edgeWidth.defaultValue)
        #expect(try NoiseSource(colour: .pink, sampleRate: 48_000).levelDBFS == Parameter.level.defaultValue)
    }

    /// Each range check of the generators, modifiers and filters: the identity, the value (number and
    /// unit) and the range the check used, as fields.
    @Test func everyLibraryCheckReportsIdentityValueAndRange() {
        let c = SilenceSource(sampleRate: 48_000)
        let rate = 48_000.0
        func caught(_ body: () throws -> Void) -> ShadesError? {
            do { try body(); return nil } catch { return error as? ShadesError }
        }
        let cases: [(ShadesError?, ParameterID, ParameterValue, ParameterRange)] = [
            (caught { _ = try NoiseColour(beta: 3) }, .beta, .number(3, .none), ParameterRange(-2...2)),
            (caught { _ = try NoiseSource(colour: .pink, sampleRate: 4_000) }, .rate, .number(4_000, .hertz), ParameterRange(8_000...192_000, unit: .hertz)),
            (caught { _ = try NoiseSource(colour: .pink, sampleRate: rate, levelDBFS: 1) }, .level, .number(1, .dBFS), .atMost(0, unit: .dBFS)),
            (caught { _ = try ToneSource(frequencyHz: 30_000, sampleRate: rate) }, .frequency, .number(30_000, .hertz),
             .above(0, below: 24_000, unit: .hertz)),
            (caught { _ = try ToneSource(frequencyHz: 1_000, sampleRate: rate, levelDBFS: -1) }, .level, .number(-1, .dBFS),
             .atMost(ToneSource.highestLevelDBFS, unit: .dBFS)),
            (caught { _ = try NarrowBandNoiseSource(centreHz: 1_000, widthOctaves: 5, sampleRate: rate) }, .width, .number(5, .octaves),
             .above(0, atMost: 4, unit: .octaves)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, cycleRateHz: 20).validate(sampleRate: rate) },
             .cycleRate, .number(20, .hertz), ParameterRange(0.1...10, unit: .hertz)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, toneSeconds: 1).validate(sampleRate: rate) },
             .toneLength, .number(1, .seconds), .above(0, atMost: 1.0 / 6, unit: .seconds)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, rampSeconds: 0.1).validate(sampleRate: rate) },
             .toneRamp, .number(0.1, .seconds), ParameterRange(0...1.0 / 12, unit: .seconds)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, onCycles: 0).validate(sampleRate: rate) },
             .onCycles, .number(0, .none), ParameterRange(1...1000, wholeNumbers: true)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, offCycles: -1).validate(sampleRate: rate) },
             .offCycles, .number(-1, .none), ParameterRange(0...1000, wholeNumbers: true)),
            (caught { try CoordinatedResetPattern(tinnitusFrequencyHz: 4_000, toneGainsDB: [0, 0, 0, 99]).validate(sampleRate: rate) },
             .toneGains, .number(99, .decibels), ParameterRange(-40...40, unit: .decibels)),
            (caught { try SpectralRipple(tinnitusFrequencyHz: 500).validate(sampleRate: rate) }, .frequency, .number(500, .hertz),
             ParameterRange(1_000...16_000, unit: .hertz)),
            (caught { try SpectralRipple(tinnitusFrequencyHz: 4_000, bandGainsDB: [0, 0, 0, 0, 0, 0, 0, -41]).validate(sampleRate: rate) },
             .bandGains, .number(-41, .decibels), ParameterRange(-40...40, unit: .decibels)),
            (caught { _ = try AmplitudeModulatedSource(carrier: c, rateHz: 200) }, .amRate, .number(200, .hertz), ParameterRange(0.5...100, unit: .hertz)),
            (caught { _ = try AmplitudeModulatedSource(carrier: c, depth: 1.5) }, .amDepth, .number(1.5, .none), ParameterRange(0...1)),
            (caught { _ = try AmplitudeModulatedSource(carrier: c, startPhase: .infinity) }, .amPhase, .number(.infinity, .radians),
             .finite(unit: .radians)),
            (caught { _ = try FadedSource(source: c, fadeInSeconds: 2, fadeOutSeconds: 0, totalFrames: 48_000) }, .fadeIn,
             .number(2, .seconds), ParameterRange(0...1, unit: .seconds)),
            (caught { _ = try FadedSource(source: c, fadeInSeconds: 0, fadeOutSeconds: -1, totalFrames: 48_000) }, .fadeOut,
             .number(-1, .seconds), ParameterRange(0...1, unit: .seconds)),
            (caught { _ = try PulsedSource(source: c, onSeconds: 0) }, .pulseOn, .number(0, .seconds), .atLeast(1 / rate, unit: .seconds)),
            (caught { _ = try PulsedSource(source: c, offSeconds: -1) }, .pulseOff, .number(-1, .seconds), ParameterRange(0...24 * 3600, unit: .seconds)),
            (caught { _ = try PulsedSource(source: c, onSeconds: 0.2, rampSeconds: -0.1) }, .ramp, .number(-0.1, .seconds),
             ParameterRange(0...0.1, unit: .seconds)),
            (caught { _ = try PulsedSource(source: c, pulseCount: 0) }, .pulseCount, .number(0, .none), ParameterRange(1...1_000_000, wholeNumbers: true)),
            (caught { _ = try SwellEnvelope(sampleRate: rate, periodSeconds: 1, depth: 0.5) }, .swellPeriod, .number(1, .seconds),
             ParameterRange(2...60, unit: .seconds)),
            (caught { _ = try SwellEnvelope(sampleRate: rate, periodSeconds: 10, depth: 2) }, .swellDepth, .number(2, .none), ParameterRange(0...1)),
            (caught { _ = try NotchDesign(notches: [NotchSpec(centreHz: 0)], sampleRate: rate) }, .notchCentre, .number(0, .hertz),
             .above(0, unit: .hertz)),
            (caught { _ = try NotchDesign(notches: [NotchSpec(centreHz: 1_000, widthOctaves: 5)], sampleRate: rate) }, .notchWidth,
             .number(5, .octaves), .above(0, atMost: 3, unit: .octaves)),
            (caught { _ = try NotchDesign(notches: [NotchSpec(centreHz: 1_000, edgeBoostDB: 40)], sampleRate: rate) }, .edgeBoost,
             .number(40, .decibels), ParameterRange(0...30, unit: .decibels)),
            (caught { _ = try NotchDesign(notches: [NotchSpec(centreHz: 1_000, edgeBoostDB: 20, edgeWidthOctaves: 4)], sampleRate: rate) },
             .edgeWidth, .number(4, .octaves), .above(0, atMost: 3, unit: .octaves)),
            (caught { _ = try OctaveBand(centreHz: 0, widthOctaves: 1) }, .bandCentre, .number(0, .hertz), .above(0, unit: .hertz)),
            (caught { _ = try OctaveBand(centreHz: 1_000, widthOctaves: 11) }, .bandWidth, .number(11, .octaves), .above(0, atMost: 10, unit: .octaves)),
            (caught { _ = try SpectrumAccumulator(sampleRate: rate, segmentLength: 1 << 23) }, .segmentLength, .number(8_388_608, .frames),
             ParameterRange(256...4_194_304, unit: .frames)),
        ]
        for (error, parameter, value, range) in cases {
            guard let error else { Issue.record("\(parameter) accepted"); continue }
            #expect(error.parameter == parameter, "\(error)")
            #expect(error.value == value, "\(error)")
            #expect(error.problem == .outOfRange, "\(error)")
            #expect(error.allowedValues?.range == range, "\(error): \(String(describing: error.allowedValues?.range))")
            #expect(error.kind == .parameter, "\(error)")
            #expect(error.description.hasPrefix("\(parameter.name) \(value) is out of range (allowed: \(range)"), "\(error)")
        }
        // A ramp inside the range but longer than half the pulse says so, with the same fields.
        let ramp = caught { _ = try PulsedSource(source: c, onSeconds: 0.2, rampSeconds: 0.12) }
        #expect(ramp?.problem == .other("is longer than half the 200 ms pulse") && ramp?.value == .number(0.12, .seconds))
    }

    /// Numbers in comments and reports are for people: no binary rounding residue.
    @Test func numbersAreFormattedForPeople() {
        #expect(formatNumber(1.0000000000000002) == "1")
        #expect(formatNumber(0.1 + 0.2) == "0.3")
        #expect(formatNumber(44_100) == "44100" && formatNumber(-20) == "-20" && formatNumber(0) == "0")
        #expect(formatNumber(12.5) == "12.5" && formatNumber(0.0251) == "0.0251" && formatNumber(-96.33) == "-96.33")
        #expect(formatNumber(6_000.123456789) == "6000.12345679")
        #expect(formatNumber(1e-9) == "1e-09" && formatNumber(3e20) == "3e+20")
    }
}

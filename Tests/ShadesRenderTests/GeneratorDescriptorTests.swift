import Testing
import Foundation
import ShadesDSP
import ShadesRender

/// Every generator kind's descriptor (``GeneratorKind``): the one place its names, parameters, JSON keys and
/// flags are written, so these hold for every kind, including one added later.
@Suite struct GeneratorDescriptorTests {
    /// Each kind at its defaults, under its first name.
    static let defaults: [Generator] = Generator.kinds.map { Self.defaults(of: $0) }

    static func defaults<K: GeneratorKind>(of kind: K.Type) -> Generator { Generator(K.defaults) }

    @Test func namesFlagsAndKeysAreUnique() {
        let names = Generator.kinds.flatMap { $0.names + $0.aliases }
        #expect(Set(names).count == names.count)
        #expect(!names.contains("file"))  // the JSON form's file source
        for kind in Generator.kinds {
            let keys = kind.keyRows.map(\.key)
            #expect(Set(keys).count == keys.count, "\(kind.names)")
        }
        // A flag means one parameter wherever it is used.
        for row in Generator.flags {
            let parameters = Set(Generator.kinds.flatMap { $0.flagRows.filter { $0.0 == row.flag }.map(\.1) })
            #expect(parameters.count == 1, "--\(row.flag) names \(parameters)")
        }
    }

    @Test(arguments: defaults)
    func theDefaultsReadBackFromTheirJSON(generator: Generator) throws {
        let sound = Sound(generator)
        #expect(try Sound.parse(json: Array(sound.compactJSON.utf8), file: "s.json") == sound)
    }

    /// A default written beside a field would be a second place for it: every field with a parameter default
    /// starts at that default.
    @Test(arguments: defaults)
    func everyDefaultIsItsParametersDefault(generator: Generator) throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Sound(generator).compactJSON.utf8)) as? [String: Any])
        let kind = try #require(Generator.kind(named: generator.name))
        for (parameter, key, required) in kind.keyRows where !required {
            guard let expected = parameter.defaultValue, let value = json[key] as? Double else { continue }
            #expect(value == expected, "\(generator.name): \(key) \(value), its parameter's default \(expected)")
        }
    }

    /// Every generator parameter checks its range, and its default lies in it (as ``ParameterTests`` checks
    /// the definitions of ShadesDSP).
    @Test func everyParameterChecksItsRangeAndItsDefaultIsInIt() {
        for kind in Generator.kinds {
            for row in kind.keyRows {
                let parameter = row.parameter
                guard parameter.range != nil else { continue }  // a choice or a switch: named, not ranged
                #expect(throws: ShadesError.self, "\(parameter.name) NaN") { try parameter.check(.nan) }
                if let value = parameter.defaultValue {
                    #expect(throws: Never.self, "\(parameter.name) default") { try parameter.check(value) }
                }
                guard let range = parameter.range, let upper = range.upper else { continue }
                do throws(ShadesError) {
                    try parameter.check(upper.value + 1)
                    Issue.record("\(parameter.name) accepted \(upper.value + 1)")
                } catch {
                    #expect(error.parameter == parameter.id && error.problem == .outOfRange && error.allowedValues?.range == range)
                }
            }
        }
    }

    /// The command line reads the same values the JSON form does, in its own units ("5ms", "2kHz").
    @Test func theCommandLineAndTheJSONReadTheSameSound() throws {
        let typed = try Generator.read("isochronic", from: CommandLineValues(["frequency": "200Hz", "beat": "10", "ramp": "5ms"]))
        let json = try Sound.parse(json: Array(#"{ "source": "isochronic", "frequency": 200, "beat": 10, "rampSeconds": 0.005 }"#.utf8),
                                   file: "s.json")
        #expect(typed == json.generator)
        let velvet = try Generator.read("velvet", from: CommandLineValues(["density": "2k"]))
        #expect(velvet == .velvetNoise(densityHz: 2_000))
    }

    /// A required parameter missing is named by the flag or the key that gives it.
    @Test func aMissingRequiredParameterIsNamed() throws {
        #expect(throws: ShadesError.self) { try Generator.read("tone", from: CommandLineValues([:])) }
        do {
            _ = try Generator.read("tone", from: CommandLineValues([:]))
        } catch {
            #expect(error.message == "tone needs --frequency (a frequency)")
        }
        do {
            _ = try Generator.read("cr", from: CommandLineValues(["frequency": "4k", "tones": "odd"]))
            Issue.record("an unknown tone set was read")
        } catch {
            #expect(error.parameter == .toneSet)
        }
    }
}

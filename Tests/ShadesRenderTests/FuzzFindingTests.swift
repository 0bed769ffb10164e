import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesTestSupport

/// What the fuzzers found in ShadesRender (Fuzz/, `make fuzz`), and a replay of the value corpus.
@Suite struct ValueFuzzFindingTests {
    /// FuzzValueParsing, `overflow-1e308kHz` and `overflow-1e306h`: a finite number times its unit's factor
    /// overflowed, and ValueParsing returned +∞ as a frequency or duration.
    @Test(arguments: ["1e308kHz", "1e308k", "1e306h", "1e307min", "-1e308khz"])
    func aValueThatOverflowsWithItsUnitIsRefused(text: String) {
        for (parameter, parse) in Self.parsers {
            do throws(ShadesError) {
                let value = try parse(text)
                #expect(value.isFinite, "\(parameter) '\(text)' parsed to \(value)")
            } catch {
                #expect(error.parameter?.rawValue == parameter)
            }
        }
    }

    /// Every committed input of FuzzValueParsing (seeds and findings) parses to a finite value or is refused
    /// with an error naming the parameter.
    @Test func theValueCorpusParsesToFiniteValuesOrIsRefused() {
        let corpus = fuzzCorpus("FuzzValueParsing")
        #expect(corpus.count >= 10)
        for (name, bytes) in corpus {
            let text = String(decoding: bytes, as: UTF8.self)
            for (parameter, parse) in Self.parsers {
                do throws(ShadesError) {
                    let value = try parse(text)
                    #expect(value.isFinite, "\(name): \(parameter) '\(text)' parsed to \(value)")
                } catch {
                    #expect(error.parameter?.rawValue == parameter, "\(name)")
                }
            }
        }
    }

    static let parsers: [(String, @Sendable (String) throws(ShadesError) -> Double)] = [
        ("duration", { text throws(ShadesError) in try ValueParsing.seconds(text) }),
        ("frequency", { text throws(ShadesError) in try ValueParsing.hertz(text) }),
        ("level", { text throws(ShadesError) in try ValueParsing.decibels(text) }),
        ("loudness", { text throws(ShadesError) in try ValueParsing.loudness(text) }),
    ]
}

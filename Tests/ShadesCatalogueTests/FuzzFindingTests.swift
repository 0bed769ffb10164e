import Testing
import Foundation
import ShadesDSP
import ShadesCatalogue
import ShadesTestSupport

/// What the preset fuzzer found (Fuzz/, `make fuzz`), and a replay of its corpus.
@Suite struct PresetFuzzFindingTests {
    /// Every committed input of FuzzPresetParser (seeds and findings) is read as the builder reads it:
    /// a catalogue that resolves into assets, or problems that each name the file and a position from 1.
    @Test func thePresetCorpusReadsOrGivesLocatedProblems() throws {
        let corpus = fuzzCorpus("FuzzPresetParser")
        #expect(corpus.count >= 5)
        for (name, bytes) in corpus {
            let file = "Fuzz/Corpus/\(name)"
            let problems: [ShadesError]
            do {
                let document = try PresetParser.parse(data: bytes, file: file)
                try PresetParser.validate([(file, document)])
                let (assets, _) = try PresetAssets.resolve([(file, document)])
                #expect(assets.count == document.sounds.count, "\(name)")
                continue
            } catch let error as ShadesError {
                problems = [error]
            } catch let errors as PresetErrors {
                problems = errors.errors
            }
            #expect(!problems.isEmpty, "\(name)")
            for problem in problems {
                #expect(problem.path == file && !problem.message.isEmpty, "\(name): \(problem)")
                #expect((problem.line ?? 1) >= 1 && (problem.column ?? 1) >= 1, "\(name): \(problem)")
            }
        }
    }

    /// `leak-fade-longer-than-sound.json` (LeakSanitizer: the failed fade check leaked its envelope buffer,
    /// see ShadesDSPTests' FuzzFindingTests) and `frequency-overflow.json` ("1e308kHz" read as +∞) are
    /// refused with one problem each, naming the key.
    @Test func theFindingsAreRefusedWithTheirKey() throws {
        let corpus = Dictionary(uniqueKeysWithValues: fuzzCorpus("FuzzPresetParser").map { ($0.name, $0.bytes) })
        let fade = try PresetParser.parse(data: try #require(corpus["leak-fade-longer-than-sound.json"]), file: "f.json")
        var problems: [ShadesError] = []
        do throws(PresetErrors) { try PresetParser.validate([("f.json", fade)]) } catch { problems = error.errors }
        #expect(problems.count == 1 && problems.first?.message.contains("fades.inSeconds") == true, "\(problems)")
        #expect {
            try PresetParser.parse(data: try #require(corpus["frequency-overflow.json"]), file: "o.json")
        } throws: { error in
            "\(error)".contains("frequency") && "\(error)".contains("1e308kHz")
        }
    }
}

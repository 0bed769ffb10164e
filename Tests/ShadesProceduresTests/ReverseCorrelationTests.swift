import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// Reverse correlation (Hoyland et al. 2023; issue 35): the stimuli drawn as the paper's uniform prior, the
/// estimate of its Eq. 2 and the ridge Normal equation, and the reconstruction of a known spectrum from a noisy
/// simulated listener: r ≥ 0.7 from 2,000 answers, growing with the answers.
@Suite struct ReverseCorrelationTests {
    /// 100 log-spaced bins over 100 Hz … 13 kHz with 10 … 30 filled (the supplemental's best stimuli filled
    /// 10–30 % of 100 bins), and a tinnitus peak at 4 kHz one octave wide.
    static let design = try! ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 100, scale: .log, fewestFilled: 10, mostFilled: 30)

    /// Pearson's r of the reconstruction from the first `n` answers of a listener with `noise`.
    static func accuracy(_ design: ReverseCorrelation.Design, answers n: Int, noise: Double, method: ReverseCorrelation.Method,
                         seed: UInt64) throws -> Double {
        let truth = SimulatedSpectrumListener.peak(at: 4_000, widthOctaves: 1, centresHz: design.centresHz)
        var listener = SimulatedSpectrumListener(spectrumDB: truth, noise: noise, seed: seed)
        let stimuli = design.draw(n, seed: seed)
        let answers = stimuli.map { listener.answer($0) }
        return ReverseCorrelation.correlation(try ReverseCorrelation.reconstruct(stimuli: stimuli, answers: answers, method: method), truth)
    }

    @Test(arguments: ReverseCorrelation.Method.allCases)
    func aNoisyListenersSpectrumIsReconstructedFrom2000Answers(method: ReverseCorrelation.Method) throws {
        var rows: [String] = []
        var previous = -1.0
        for n in [100, 200, 500, 1_000, 2_000] {
            // The mean over 5 listeners (seeds), as the paper averages over repeats.
            let rs = try (1...5).map { try Self.accuracy(Self.design, answers: n, noise: 0.1, method: method, seed: UInt64($0)) }
            let mean = rs.reduce(0, +) / Double(rs.count)
            rows.append("\(n): r \(String(format: "%.3f", mean)) (min \(String(format: "%.3f", rs.min()!)))")
            if n == 2_000 { #expect(rs.allSatisfy { $0 >= 0.7 }, "\(method) at 2000 answers: \(rs)") }
            #expect(mean > previous - 0.02, "\(method): r fell from \(previous) to \(mean) at \(n) answers")
            previous = mean
        }
        print("revcorr \(method), 100 bins, noise 0.1: " + rows.joined(separator: "; "))
    }

    /// The paper's design (8 bins, 2 … 7 filled) and its ideal listener (no noise) at its 200 trials.
    @Test func thePapersDesignAtItsTrials() throws {
        let paper = ReverseCorrelation.Design.paper
        let rs = try (1...20).map { try Self.accuracy(paper, answers: 200, noise: 0, method: .linear, seed: UInt64($0)) }
        let noisy = try (1...20).map { try Self.accuracy(paper, answers: 200, noise: 0.3, method: .linear, seed: UInt64($0)) }
        print("revcorr paper design, 200 answers: ideal r \(rs.reduce(0, +) / 20), noise 0.3 r \(noisy.reduce(0, +) / 20)")
        #expect(rs.reduce(0, +) / 20 > 0.9 && rs.min()! > 0.7, "\(rs)")
    }

    @Test func stimuliFollowTheUniformPriorAndTheSeed() throws {
        let stimuli = Self.design.draw(3_000, seed: 9)
        #expect(stimuli == Self.design.draw(3_000, seed: 9) && stimuli != Self.design.draw(3_000, seed: 10))
        var counts = [Int](repeating: 0, count: 31), perBin = [Int](repeating: 0, count: 100)
        for s in stimuli {
            #expect(s.allSatisfy { $0 == 0 || $0 == -100 })
            let filled = s.filter { $0 == 0 }.count
            counts[filled] += 1
            for (j, level) in s.enumerated() where level == 0 { perBin[j] += 1 }
        }
        // Every count 10 … 30 equally likely (3000/21 ≈ 143 each: within 5 SD), none outside.
        #expect(counts[0..<10].allSatisfy { $0 == 0 } && counts[10...30].allSatisfy { abs(Double($0) - 3_000 / 21) < 5 * (3_000.0 / 21).squareRoot() }, "\(counts)")
        // Every bin filled 20 % of the time: 600 ± 5 SD.
        #expect(perBin.allSatisfy { abs(Double($0) - 600) < 5 * (3_000 * 0.2 * 0.8).squareRoot() }, "\(perBin)")
        let edges = Self.design.edgesHz
        #expect(edges.count == 101 && abs(edges[0] - 100) < 1e-9 && abs(edges[100] - 13_000) < 1e-6)
        #expect(abs(edges[50] - (100 * 13_000).squareRoot()) < 1e-6)
        let mel = try ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 8, scale: .mel, fewestFilled: 2, mostFilled: 7).edgesHz
        let mels = mel.map { 2595 * log10(1 + $0 / 700) }
        #expect(zip(mels, mels.dropFirst()).allSatisfy { abs(($1 - $0) - (mels[8] - mels[0]) / 8) < 1e-9 })
    }

    @Test func theLinearEstimateIsTheMeanYesStimulusMinusTheMeanNo() throws {
        let stimuli: [[Double]] = [[0, -100, -100], [0, 0, -100], [-100, 0, 0], [-100, -100, 0]]
        let answers = [true, true, false, false]
        let x = try ReverseCorrelation.reconstruct(stimuli: stimuli, answers: answers, method: .linear)
        // (1/p)·Σ y·(ψ − mean): bin 0 filled only in yes stimuli: (50 + 50 + 50 + 50)/4 = 50.
        #expect(zip(x, [50.0, 0, -50]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(x)")
        // A listener who says yes exactly when bin 3 is filled: both methods put the peak there.
        let design = try ReverseCorrelation.Design(lowHz: 100, highHz: 10_000, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 6)
        let many = design.draw(400, seed: 2)
        for method in ReverseCorrelation.Method.allCases {
            let w = try ReverseCorrelation.reconstruct(stimuli: many, answers: many.map { $0[3] == 0 }, method: method)
            #expect(w.indices.max { w[$0] < w[$1] } == 3, "\(method): \(w)")
        }
        #expect(throws: ShadesError.self) { try ReverseCorrelation.reconstruct(stimuli: stimuli, answers: [true, true, true, true], method: .linear) }
        #expect(throws: ShadesError.self) { try ReverseCorrelation.reconstruct(stimuli: stimuli, answers: [true], method: .linear) }
    }

    /// Compressed sensing keeps the strongest DCT coefficients: an estimate that is 3 times one orthonormal DCT-II
    /// basis vector plus 0.1 times another gives back the first alone, with unit norm, at sparsity 1.
    @Test func compressedSensingKeepsTheStrongestDCTCoefficients() {
        let b = 16
        func basis(_ k: Int) -> [Double] {
            (0..<b).map { n in (k == 0 ? (1 / Double(b)).squareRoot() : (2 / Double(b)).squareRoot()) * cos(Double.pi * Double(2 * n + 1) * Double(k) / Double(2 * b)) }
        }
        let estimate = zip(basis(2), basis(5)).map { 3 * $0 + 0.1 * $1 }
        let x = ReverseCorrelation.compressedSensing(linear: estimate, sparsity: 1)
        #expect(zip(x, basis(2)).allSatisfy { abs($0 - $1) < 1e-12 }, "\(x)")
        #expect(ReverseCorrelation.compressedSensing(linear: [Double](repeating: 0, count: b), sparsity: 4).allSatisfy { $0 == 0 })
    }

    @Test func badDesignsAreRefused() {
        func refused(_ parameter: ParameterID, _ make: () throws -> Void) {
            do { try make(); Issue.record("\(parameter) accepted") } catch let error as ShadesError {
                #expect(error.parameter == parameter && error.description.contains("allowed"), "\(error)")
            } catch { Issue.record("\(error)") }
        }
        refused(.binCount) { _ = try ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 1, scale: .log, fewestFilled: 1, mostFilled: 1) }
        refused(.binCount) { _ = try ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 600, scale: .log, fewestFilled: 1, mostFilled: 1) }
        refused(.filledBins) { _ = try ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 8) }
        refused(.filledBins) { _ = try ReverseCorrelation.Design(lowHz: 100, highHz: 13_000, binCount: 8, scale: .log, fewestFilled: 5, mostFilled: 3) }
        refused(.binHigh) { _ = try ReverseCorrelation.Design(lowHz: 1_000, highHz: 500, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 7) }
        refused(.binLow) { _ = try ReverseCorrelation.Design(lowHz: 5, highHz: 500, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 7) }
        refused(.unfilledLevel) { _ = try ReverseCorrelation.Design(lowHz: 100, highHz: 500, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 7, unfilledDB: 0) }
    }

    @Test func answersAreMatchedToTheIndex() throws {
        var files: [StimulusFile] = []
        for (i, levels) in [[0.0, -100], [-100, 0], [0, -100]].enumerated() {
            var file = StimulusFile(file: "revcorr-000\(i + 1).wav", kind: "revcorr", frequency: 1_000, widthOctaves: 7, ear: "both", duration: 0.5, level: -20)
            file.binLevelsDB = levels
            files.append(file)
        }
        let filesJSON = String(decoding: try JSONEncoder().encode(files), as: UTF8.self)
        let index = try JSONDecoder().decode(StimulusIndex.self, from: Data(#"{"set": "revcorr", "generator": "shades", "rate": 48000, "format": "wav s16", "level": -20, "files": \#(filesJSON)}"#.utf8))
        let rows = try ReverseCorrelation.csvRows("stimulus,answer\n# a comment\nrevcorr-0001.wav,yes\r\n\n2, No\nrevcorr-0003,y\n")
        let (stimuli, answers) = try ReverseCorrelation.answered(rows, index: index)
        #expect(stimuli == [[0, -100], [-100, 0], [0, -100]] && answers == [true, false, true])
        for (text, problem) in [("revcorr-0009.wav,yes", "not a stimulus"), ("1,yes\n1,no", "answered twice"), ("1,maybe", "yes or no"),
                                ("4,yes", "not a stimulus"), ("1;yes", "stimulus,answer")] {
            do {
                _ = try ReverseCorrelation.answered(try ReverseCorrelation.csvRows(text), index: index)
                Issue.record("\(text) accepted")
            } catch {
                #expect(error.parameter == .answersFile && "\(error)".contains(problem), "\(text): \(error)")
            }
        }
    }
}

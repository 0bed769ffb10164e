import Testing
import Foundation
import ShadesDSP
import ShadesTestSupport
import ShadesProcedures

/// Reverse correlation and the MRIL from the command line (issue 35): `stimuli revcorr` writes the set and its
/// index, `revcorr simulate` answers it, `revcorr reconstruct` finds the simulated spectrum; `mril` with a
/// simulated listener, its result read by `stimuli residual-inhibition --reference-from`; bad inputs refused in
/// one line with no file.
@Suite struct RevCorrCommandTests {
    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test func aSimulatedListenersSpectrumIsReconstructedFromTheSet() throws {
        let folder = temporaryFolder("revcorr")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Shell.run(["stimuli", "revcorr", "--count", "300", "--bins", "16", "--filled", "3-10", "--scale", "mel",
                                  "--duration", "250ms", "--seed", "4", "-o", "set"], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        let index = try json("\(folder)/set/index.json")
        let edges = try #require(index["binEdgesHz"] as? [Double])
        let files = try #require(index["files"] as? [[String: Any]])
        #expect(edges.count == 17 && index["binScale"] as? String == "mel" && files.count == 300)
        for file in files {
            let levels = try #require(file["binLevelsDB"] as? [Double])
            let filled = levels.filter { $0 == 0 }.count
            #expect(levels.count == 16 && (3...10).contains(filled) && levels.allSatisfy { $0 == 0 || $0 == -100 })
        }
        // A file's spectrum: its filled bins carry the power, its unfilled ones 40 dB less or lower (the ramps' leakage, s16 dither).
        let first = try DecodedAudio(contentsOf: "\(folder)/set/\(files[0]["file"] as! String)")
        let x = first.buffer.samples(channel: 0)
        #expect(x.count == 12_000)
        let spectrum = x.withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: 48_000) }
        let levels = files[0]["binLevelsDB"] as! [Double]
        var power = [Double](repeating: 0, count: 16), counts = power
        for (k, p) in spectrum.density.enumerated() {
            let f = Double(k) * spectrum.binWidthHz
            // Away from the edges: the 10 ms ramps spread each edge over about 100 Hz.
            guard let j = (0..<16).first(where: { f >= edges[$0] * 1.05 + 50 && f < edges[$0 + 1] / 1.05 - 50 }) else { continue }
            (power[j], counts[j]) = (power[j] + p, counts[j] + 1)
        }
        var filledPower: [Double] = [], unfilledPower: [Double] = []
        for j in 0..<16 where counts[j] > 0 {
            if levels[j] == 0 { filledPower.append(power[j] / counts[j]) } else { unfilledPower.append(power[j] / counts[j]) }
        }
        #expect(10 * log10(filledPower.min()! / unfilledPower.max()!) > 40, "\(filledPower) \(unfilledPower)")

        let answered = try Shell.run(["revcorr", "simulate", "--index", "set", "--frequency", "3kHz", "--width", "1.5", "--noise", "0.05",
                                      "-o", "answers.csv"], in: folder)
        try #require(answered.status == 0, "\(answered.stderr)")
        let rebuilt = try Shell.run(["revcorr", "reconstruct", "answers.csv", "--index", "set/index.json", "-o", "spectrum.json"], in: folder)
        try #require(rebuilt.status == 0, "\(rebuilt.stderr)")
        let result = try json("\(folder)/spectrum.json")
        let centres = try #require(result["binCentresHz"] as? [Double]), weights = try #require(result["weights"] as? [Double])
        let truth = SimulatedSpectrumListener.peak(at: 3_000, widthOctaves: 1.5, centresHz: centres)
        #expect(ReverseCorrelation.correlation(weights, truth) >= 0.7 && result["answers"] as? Int == 300)
        #expect(abs(log2((result["peakHz"] as! Double) / 3_000)) < 0.5, "\(result["peakHz"]!)")
        // JSON answers, numbers for stimuli, and the index beside the answers: the same spectrum.
        let rows = try String(contentsOfFile: "\(folder)/answers.csv", encoding: .utf8).split(separator: "\n").dropFirst().enumerated()
            .map { i, line in #"{"stimulus": \#(i + 1), "answer": \#(line.hasSuffix("yes"))}"# }
        try Data(("[" + rows.joined(separator: ",") + "]").utf8).write(to: URL(fileURLWithPath: "\(folder)/set/answers.json"))
        let again = try Shell.run(["revcorr", "reconstruct", "set/answers.json", "--json"], in: folder)
        try #require(again.status == 0, "\(again.stderr)")
        let same = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any]
        #expect(same["weights"] as? [Double] == weights)
    }

    @Test func badRevCorrInputsAreRefusedInOneLine() throws {
        let folder = temporaryFolder("revcorr-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stimuli: [([String], String)] = [
            (["--count", "0"], "--count"), (["--count", "2.5"], "--count"), (["--bins", "1"], "--bins"), (["--bins", "9999"], "--bins"),
            (["--filled", "2-9"], "--filled"), (["--filled", "x"], "--filled"), (["--filled", "5-3"], "--filled"),
            (["--scale", "bark"], "--scale"), (["--from", "5"], "--from"), (["--to", "30kHz"], "--to"),
            (["--unfilled", "0"], "--unfilled"), (["--duration", "0"], "--duration"), (["--level", "3"], "--level"),
            (["--bins", "512", "--from", "100", "--to", "200"], "--bin-levels"),
        ]
        for (arguments, named) in stimuli {
            let run = try Shell.run(["stimuli", "revcorr"] + arguments + ["-o", "set"], in: folder)
            #expect(run.status == 2 && run.stderr.contains(named) && run.stderr.contains("allowed") && run.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(run.status) \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/set"))
        }
        try #require(try Shell.run(["stimuli", "revcorr", "--count", "4", "-o", "set"], in: folder).status == 0)
        let answers: [(String, String)] = [("stimulus,answer\n1,yes\n9,no\n", "not a stimulus"), ("1,yes\n2,perhaps\n", "yes or no"),
                                           ("1,yes\n2,yes\n", "both yes and no"), ("1,yes\n1,no\n", "answered twice"), ("[{\"x\": 1}]", "not a list of answers")]
        for (text, problem) in answers {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/a.csv"))
            let run = try Shell.run(["revcorr", "reconstruct", "a.csv", "--index", "set", "-o", "out.json"], in: folder)
            #expect(run.status == 2 && run.stderr.contains(problem) && run.stderr.split(separator: "\n").count == 1, "\(text): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.json"))
        }
        try Data("1,yes\n2,no\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/a.csv"))
        for (arguments, named) in [(["--method", "lasso"], "--method"), (["--index", "nowhere.json"], "nowhere.json")] {
            let run = try Shell.run(["revcorr", "reconstruct", "a.csv", "--index", "set"] + arguments + ["-o", "out.json"], in: folder)
            #expect(run.status != 0 && run.stderr.contains(named) && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        }
        for (arguments, named) in [(["--frequency", "20kHz"], "--frequency"), (["--frequency", "1kHz", "--noise", "2"], "--noise"),
                                   (["--frequency", "1kHz", "--width", "0"], "--width")] {
            let run = try Shell.run(["revcorr", "simulate", "--index", "set"] + arguments + ["-o", "s.csv"], in: folder)
            #expect(run.status == 2 && run.stderr.contains(named) && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/s.csv"))
        }
    }

    @Test func simulatedMRILFeedsTheResidualInhibitionSet() throws {
        let folder = temporaryFolder("mril")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Shell.run(["mril", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "21dB", "--simulate-mril", "7dB",
                                 "--simulate-complete", "12dB", "--envelope", "trapezoidal", "-o", "mril.json"], in: folder)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("minimum residual-inhibition level") && run.stdout.contains("-52 dBFS"), "\(run.stdout)")
        let result = try json("\(folder)/mril.json")
        // Masked from -59 dBFS: the MML is -58 on the 2 dB ladder from -80; reduced from -52, gone from -47 (-46).
        #expect(result["maskingLevelDBFS"] as? Double == -58 && result["levelDBFS"] as? Double == -52 && result["completeLevelDBFS"] as? Double == -46)
        #expect((result["bursts"] as? [String: Any])?["envelope"] as? String == "trapezoidal")
        let set = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "mril.json", "--above", "0", "--masker", "2s",
                                 "--silence", "1s", "--probe", "1s", "--mml-from", "0", "--mml-to", "0", "-o", "ri"], in: folder)
        try #require(set.status == 0, "\(set.stderr)")
        let files = try #require(try json("\(folder)/ri/index.json")["files"] as? [[String: Any]])
        #expect(files.first?["level"] as? Double == -52 && files.first?["frequency"] as? Double == 6_000 && files.first?["widthOctaves"] as? Double == 1)
        // A result without an MRIL is refused as a reference.
        let none = try Shell.run(["mril", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "21dB", "--simulate-mril", "60dB",
                                  "-o", "none.json"], in: folder)
        try #require(none.status == 0, "\(none.stderr)")
        let refused = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "none.json", "-o", "ri2"], in: folder)
        #expect(refused.status == 2 && refused.stderr.contains("has no level") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        for (arguments, named) in [(["--step", "3"], "--step"), (["--envelope", "square"], "--envelope"), (["--burst", "20s"], "--burst"),
                                   (["--silence", "0"], "--silence"), (["--envelope", "trapezoidal", "--ramp", "2s"], "--ramp"),
                                   (["--simulate-mril", "-3dB"], "--simulate-mril"), (["--width", "5"], "--width")] {
            let bad = try Shell.run(["mril", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "20dB"] + arguments + ["-o", "bad.json"], in: folder)
            #expect(bad.status == 2 && bad.stderr.contains(named) && bad.stderr.contains("allowed") && bad.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/bad.json"))
        }
    }
}

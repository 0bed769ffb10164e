import ShadesDSP
import ShadesRender
import ShadesPlatform

/// Reverse correlation of the tinnitus spectrum (Hoyland et al. 2023, "Reverse correlation uncovers more complete
/// tinnitus spectra", IEEE Open J Eng Med Biol 4; code: The-Lammert-Lab/tinnitus-reconstruction). The listener
/// hears random binned spectra (``BinnedNoise``: a random number of bins "filled" at 0 dB, the rest at −100 dB) and
/// answers yes or no: "does it sound like my tinnitus?". The spectrum is reconstructed by regressing the
/// answers on the stimuli's bin levels.
///
/// With p answers y ∈ {1, −1}ᵖ and the stimuli's bin levels Ψ ∈ ℝᵖˣᵇ (each column centred), the paper's
/// estimate (its Eq. 2, the Normal equation restricted to uncorrelated bins; Gosselin & Schyns 2003) is
/// x̂ = (1/p)·Ψᵀy: the mean of the "yes" stimuli minus that of the "no" ones. ``Method/ridge`` solves the
/// full Normal equation with a ridge, x̂ = (ΨᵀΨ + λI)⁻¹Ψᵀy, λ = trace(ΨᵀΨ)/p (the stimuli's total variance:
/// about b/p of each diagonal term, so few answers shrink it toward Eq. 2 and many leave the plain Normal
/// equation; the repository's `gs(…, ridge=true)` uses a fixed 10⁻⁴), defined with fewer answers than bins too.
/// Accuracy is Pearson's r between the estimate and the true spectrum in the same bins.
package enum ReverseCorrelation {
    /// The stimuli: the range, the bins, how many are filled and at what levels.
    package struct Design: Sendable, Equatable, Encodable {
        /// The range the bins split, Hz.
        package let lowHz: Double
        package let highHz: Double
        package let binCount: Int
        package let scale: BinnedNoise.Scale
        /// The fewest and most bins filled in one stimulus (each count equally likely).
        package let fewestFilled: Int
        package let mostFilled: Int
        /// The levels of filled and unfilled bins, dB.
        package let filledDB: Double
        package let unfilledDB: Double

        /// The paper's: 8 bins from 100 Hz to 13 kHz, 2 … 7 filled at 0 dB, the rest at −100 dB (its bins are
        /// mel-spaced: `scale` .mel).
        package static let paper = try! Design(lowHz: 100, highHz: 13_000, binCount: 8, scale: .log, fewestFilled: 2, mostFilled: 7)

        /// - Parameters: `lowHz` 20 Hz … below `highHz`; `binCount` 2 … 512; `fewestFilled` 1 … `mostFilled` ≤
        ///   `binCount` − 1 (a stimulus with every bin filled says nothing); `unfilledDB` −120 … −10 dB.
        package init(lowHz: Double, highHz: Double, binCount: Int, scale: BinnedNoise.Scale, fewestFilled: Int, mostFilled: Int,
                     unfilledDB: Double = -100) throws(ShadesError) {
            try Parameter.binLow.check(lowHz)
            try Parameter.binHigh.check(highHz, within: .above(lowHz, unit: .hertz), note: "(above the lowest edge)")
            try Parameter.binCount.check(Double(binCount))
            let filled = ParameterRange(1...Double(binCount - 1), wholeNumbers: true)
            try Parameter(.filledBins, unit: .none).check(Double(fewestFilled), within: filled, note: "(fewer than the \(binCount) bins)")
            try Parameter(.filledBins, unit: .none).check(Double(mostFilled), within: ParameterRange(Double(fewestFilled)...Double(binCount - 1), wholeNumbers: true),
                                                         note: "(from the fewest filled to one fewer than the \(binCount) bins)")
            try Parameter(.unfilledLevel, unit: .decibels).check(unfilledDB, within: ParameterRange(-120...(-10), unit: .decibels))
            (self.lowHz, self.highHz, self.binCount, self.scale) = (lowHz, highHz, binCount, scale)
            (self.fewestFilled, self.mostFilled, filledDB, self.unfilledDB) = (fewestFilled, mostFilled, 0, unfilledDB)
        }

        /// The bin edges, Hz (binCount + 1).
        package var edgesHz: [Double] { BinnedNoise.edgesHz(lowHz: lowHz, highHz: highHz, count: binCount, scale: scale) }
        /// Each bin's geometric centre, Hz.
        package var centresHz: [Double] { zip(edgesHz, edgesHz.dropFirst()).map { ($0 * $1).squareRoot() } }

        /// `count` stimuli's bin levels, dB, drawn from `seed`: a number of filled bins uniform in
        /// `fewestFilled … mostFilled`, the bins chosen uniformly without replacement (the paper's "uniform prior").
        package func draw(_ count: Int, seed: UInt64) -> [[Double]] {
            var random = SplitMix64(seed: SeedStream.schedule.key(seed: seed, channel: 0))
            return (0..<count).map { _ in
                let filled = fewestFilled + Int(random.next() % UInt64(mostFilled - fewestFilled + 1))
                var bins = Array(0..<binCount)
                var levels = [Double](repeating: unfilledDB, count: binCount)
                for k in 0..<filled {   // a partial Fisher–Yates shuffle
                    let j = k + Int(random.next() % UInt64(binCount - k))
                    bins.swapAt(k, j)
                    levels[bins[k]] = filledDB
                }
                return levels
            }
        }
    }

    /// How the spectrum is estimated from the answers.
    package enum Method: String, CaseIterable, Sendable, Codable {
        /// x̂ = (1/p)·Ψᵀy (Hoyland et al. 2023, Eq. 2).
        case linear
        /// x̂ = (ΨᵀΨ + λI)⁻¹Ψᵀy, the full Normal equation with a ridge λ = trace(ΨᵀΨ)/p.
        case ridge
        /// Compressed sensing (the paper's second method): the spectrum taken as sparse in the DCT basis C and
        /// recovered by Zhang et al.'s passive one-bit algorithm (ICML 2014): α = (1/p)·(ΨC)ᵀy, soft-thresholded
        /// at its (Γ+1)-th largest magnitude and scaled to unit norm, then x̂ = C·s; Γ = 32 as in the authors'
        /// code, at most b − 1. (ΨC)ᵀy = Cᵀ(Ψᵀy): α is the orthonormal DCT-II of the linear estimate.
        case cs

        /// Coefficients kept by ``cs`` (the authors' default Γ), at most the bins less one.
        package static let compressedSensingSparsity = 32
    }

    /// The estimate of each bin (arbitrary units, larger: more like the tinnitus) from `stimuli` (each one's bin
    /// levels, dB) and `answers` (true: yes), by `method`. Needs answers of both kinds.
    package static func reconstruct(stimuli: [[Double]], answers: [Bool], method: Method) throws(ShadesError) -> [Double] {
        guard let b = stimuli.first?.count, b > 0, stimuli.count == answers.count, stimuli.allSatisfy({ $0.count == b }) else {
            throw ShadesError(parameter: .answer, value: "\(answers.count) answers for \(stimuli.count) stimuli",
                              allowed: "one answer per stimulus, every stimulus with the same bins")
        }
        let yes = answers.filter { $0 }.count
        guard yes > 0, yes < answers.count else {
            throw ShadesError(parameter: .answer, value: "\(answers.count) answers, all \(yes > 0 ? "yes" : "no")",
                              allowed: "both yes and no answers (the estimate contrasts them)")
        }
        let p = Double(stimuli.count)
        let means = (0..<b).map { j in stimuli.reduce(0) { $0 + $1[j] } / p }
        let centred = stimuli.map { row in zip(row, means).map { $0 - $1 } }
        let y = answers.map { $0 ? 1.0 : -1.0 }
        var psiTy = [Double](repeating: 0, count: b)
        for (row, answer) in zip(centred, y) { for j in 0..<b { psiTy[j] += row[j] * answer } }
        switch method {
        case .linear:
            return psiTy.map { $0 / p }
        case .ridge:
            var gram = [Double](repeating: 0, count: b * b)
            for row in centred {
                for i in 0..<b where row[i] != 0 { for j in i..<b { gram[i * b + j] += row[i] * row[j] } }
            }
            for i in 0..<b { for j in 0..<i { gram[i * b + j] = gram[j * b + i] } }
            let lambda = max((0..<b).reduce(0) { $0 + gram[$1 * b + $1] } / p, 1e-12)
            for i in 0..<b { gram[i * b + i] += lambda }
            return LinearAlgebra.solve(gram, psiTy, size: b)
        case .cs:
            return compressedSensing(linear: psiTy.map { $0 / p }, sparsity: min(Method.compressedSensingSparsity, b - 1))
        }
    }

    /// ``Method/cs`` from the linear estimate: its orthonormal DCT-II α, soft-thresholded at the (`sparsity`+1)-th
    /// largest |α| and scaled to unit norm (zero if nothing is above the threshold), then the inverse DCT.
    package static func compressedSensing(linear: [Double], sparsity: Int) -> [Double] {
        let b = linear.count
        // The orthonormal DCT-II basis: C[n][k] = w(k)·cos(π(2n+1)k / 2b), w(0) = √(1/b), w(k) = √(2/b).
        func basis(_ n: Int, _ k: Int) -> Double {
            (k == 0 ? (1 / Double(b)).squareRoot() : (2 / Double(b)).squareRoot()) * cos(Double.pi * Double(2 * n + 1) * Double(k) / Double(2 * b))
        }
        let alpha = (0..<b).map { k in (0..<b).reduce(0.0) { $0 + basis($1, k) * linear[$1] } }
        let threshold = alpha.map(abs).sorted(by: >)[max(0, min(sparsity, b - 1))]
        var coefficients = alpha.map { $0 > 0 ? max(0, $0 - threshold) : -max(0, -$0 - threshold) }
        let norm = coefficients.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > 0 else { return [Double](repeating: 0, count: b) }
        coefficients = coefficients.map { $0 / norm }
        return (0..<b).map { n in (0..<b).reduce(0.0) { $0 + basis(n, $1) * coefficients[$1] } }
    }

    /// Pearson's r of `a` and `b` (0 when either is constant).
    package static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        let (ma, mb) = (a.reduce(0, +) / Double(a.count), b.reduce(0, +) / Double(b.count))
        var (sab, saa, sbb) = (0.0, 0.0, 0.0)
        for (x, y) in zip(a, b) { (sab, saa, sbb) = (sab + (x - ma) * (y - mb), saa + (x - ma) * (x - ma), sbb + (y - mb) * (y - mb)) }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }

    /// `values` standardised: mean 0, standard deviation 1 (the paper's figures show reconstructions so).
    package static func standardised(_ values: [Double]) -> [Double] {
        let mean = values.reduce(0, +) / Double(values.count)
        let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
        return values.map { sd > 0 ? ($0 - mean) / sd : 0 }
    }
}

/// A simulated listener for reverse correlation, as the paper's simulations: it answers yes when a stimulus'
/// bin levels correlate with its tinnitus spectrum (Pearson's r) above `threshold`, after adding Gaussian
/// noise of standard deviation `noise` to r (0: the paper's ideal listener, who thresholds at the median when
/// `threshold` is the median r).
package struct SimulatedSpectrumListener: Sendable {
    /// The tinnitus spectrum in the stimuli's bins, dB.
    package let spectrumDB: [Double]
    package let noise: Double
    package let threshold: Double
    private var random: SplitMix64

    package init(spectrumDB: [Double], noise: Double = 0.1, threshold: Double = 0, seed: UInt64 = 1) {
        (self.spectrumDB, self.noise, self.threshold) = (spectrumDB, noise, threshold)
        random = SplitMix64(seed: SeedStream.schedule.key(seed: seed, channel: 1))
    }

    /// A spectrum in bins centred at `centresHz`: a peak at `peakHz`, `heightDB` over a floor, Gaussian in log
    /// frequency and `widthOctaves` wide at half its height.
    package static func peak(at peakHz: Double, widthOctaves: Double, heightDB: Double = 40, centresHz: [Double]) -> [Double] {
        let sigma = widthOctaves / 2 / (2 * log(2.0)).squareRoot()
        return centresHz.map { f in
            let d = log2(f / peakHz)
            return heightDB * exp(-d * d / (2 * sigma * sigma))
        }
    }

    /// Yes or no to a stimulus with bin levels `levelsDB`.
    package mutating func answer(_ levelsDB: [Double]) -> Bool {
        let r = ReverseCorrelation.correlation(levelsDB, spectrumDB)
        guard noise > 0 else { return r > threshold }
        // Box–Muller.
        let u = max(random.nextUnit(), 0x1p-53), v = random.nextUnit()
        return r + noise * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v) > threshold
    }
}

extension ParameterID {
    /// Reverse correlation: the number of bins and of filled bins, the unfilled bins' level, the stimuli.
    package static let binCount = ParameterID("binCount", name: "bin count")
    package static let filledBins = ParameterID("filledBins", name: "filled bins")
    package static let unfilledLevel = ParameterID("unfilledLevel", name: "unfilled level")
    package static let stimulusCount = ParameterID("stimulusCount", name: "stimulus count")
    package static let answersFile = ParameterID("answersFile", name: "answers file")
}

extension Parameter {
    package static let binCount = Parameter(.binCount, range: ParameterRange(2...Double(BinnedNoise.maximumBins), wholeNumbers: true))
    package static let filledBins = Parameter(.filledBins, range: ParameterRange(1...Double(BinnedNoise.maximumBins - 1), wholeNumbers: true))
    package static let stimulusCount = Parameter(.stimulusCount, range: ParameterRange(1...Double(ReverseCorrelation.maximumStimuli), wholeNumbers: true))
}

extension ReverseCorrelation {
    /// The stimuli of a reverse-correlation set: `count` random binned spectra of `design`, each `durationSeconds`
    /// long (the paper's 0.5 s) at `levelDBFS` RMS with 10 ms raised-cosine ramps, each with its own random phases
    /// (seed + its number), named revcorr-0001 … in the order drawn.
    package static func stimuli(_ design: Design, count: Int, durationSeconds: Double, levelDBFS: Double, layout: ChannelLayout,
                                sampleRate: Double, seed: UInt64) throws(ShadesError) -> [StimulusSets.Item] {
        try Parameter.stimulusCount.check(Double(count))
        let digits = max(4, String(count).count)
        let centre = (design.lowHz * design.highHz).squareRoot(), octaves = log2(design.highHz / design.lowHz)
        return try design.draw(count, seed: seed).enumerated().map { (i: Int, levels: [Double]) throws(ShadesError) -> StimulusSets.Item in
            let request = RenderRequest(sound: .binnedNoise(lowHz: design.lowHz, highHz: design.highHz, scale: design.scale, levelsDB: levels),
                                        durationSeconds: durationSeconds, sampleRate: sampleRate, layout: layout, levelDBFS: levelDBFS,
                                        seed: seed &+ UInt64(i + 1), fades: Fades(inSeconds: 0.01, outSeconds: 0.01))
            try request.validate()
            let number = String(i + 1)
            var entry = StimulusFile(file: "revcorr-" + String(repeating: "0", count: max(0, digits - number.count)) + number,
                                     kind: "revcorr", frequency: centre, widthOctaves: octaves, ear: earName(layout),
                                     duration: Double(request.frameCount) / sampleRate, level: levelDBFS)
            entry.binLevelsDB = levels
            return StimulusSets.Item(request: request, entry: entry)
        }
    }

    /// The most stimuli in one set.
    package static let maximumStimuli = 20_000

    private static func earName(_ layout: ChannelLayout) -> String {
        switch layout {
        case .left: return "left"
        case .right: return "right"
        default: return "both"
        }
    }

    /// One answer as typed: the stimulus (its file name in index.json, with or without the extension, or its
    /// number there, from 1) and yes or no.
    package struct TypedAnswer: Sendable, Equatable {
        package let stimulus: String
        package let answer: String
        package let line: Int?
        package init(stimulus: String, answer: String, line: Int? = nil) { (self.stimulus, self.answer, self.line) = (stimulus, answer, line) }
    }

    /// The rows of an answers CSV: `stimulus,answer` per line; a header line "stimulus,answer", blank lines and
    /// lines starting with # are skipped.
    package static func csvRows(_ text: String) throws(ShadesError) -> [TypedAnswer] {
        var rows: [TypedAnswer] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: " \t\"") }
            if rows.isEmpty && cells.first?.lowercased() == "stimulus" { continue }
            guard cells.count == 2 else {
                throw ShadesError(parameter: .answersFile, value: "line \(n + 1) '\(line)'", allowed: "stimulus,answer per line, e.g. revcorr-0001.wav,yes")
            }
            rows.append(TypedAnswer(stimulus: cells[0], answer: cells[1], line: n + 1))
        }
        return rows
    }

    /// The answers matched to `index`'s stimuli: each stimulus' bin levels and the answer (true: yes). Every
    /// stimulus answered at most once; yes/no, y/n, 1/0 or true/false.
    package static func answered(_ rows: [TypedAnswer], index: StimulusIndex) throws(ShadesError) -> (stimuli: [[Double]], answers: [Bool]) {
        var position: [String: Int] = [:]
        for (i, file) in index.files.enumerated() {
            position[file.file] = i
            position[String(file.file.split(separator: ".").dropLast().joined(separator: "."))] = i
        }
        var seen = Set<Int>()
        var stimuli: [[Double]] = [], answers: [Bool] = []
        for row in rows {
            let at = row.line.map { "line \($0): " } ?? ""
            let i: Int
            if let number = Int(row.stimulus), (1...index.files.count).contains(number) { i = number - 1 } else if let found = position[row.stimulus] { i = found } else {
                throw ShadesError(parameter: .answersFile, value: "\(at)'\(row.stimulus)'", problem: "is not a stimulus of the index",
                                  allowed: "a file name of index.json or its number, 1 … \(index.files.count)")
            }
            guard seen.insert(i).inserted else {
                throw ShadesError(parameter: .answersFile, value: "\(at)'\(row.stimulus)'", problem: "is answered twice", allowed: "one answer per stimulus")
            }
            guard let levels = index.files[i].binLevelsDB else {
                throw ShadesError(parameter: .answersFile, value: "\(at)'\(row.stimulus)'", problem: "has no bin levels in the index",
                                  allowed: "the index.json of `shades stimuli revcorr`")
            }
            switch row.answer.lowercased() {
            case "yes", "y", "1", "true": answers.append(true)
            case "no", "n", "0", "false": answers.append(false)
            default:
                throw ShadesError(parameter: .answersFile, value: "\(at)answer '\(row.answer)'", allowed: "yes or no (y/n, 1/0, true/false)")
            }
            stimuli.append(levels)
        }
        return (stimuli, answers)
    }
}

extension StringProtocol {
    /// The text without `characters` at either end.
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var s = Substring(self)
        while let c = s.first, characters.contains(c) { s.removeFirst() }
        while let c = s.last, characters.contains(c) { s.removeLast() }
        return String(s)
    }
}

import ShadesDSP
import ShadesPlatform

/// A first-in first-out queue of samples (append at the end, drop from the front).
struct SampleFIFO: Sendable {
    private var storage: [Float] = []
    private var start = 0

    /// Samples waiting.
    var count: Int { storage.count - start }

    mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        if start > 0 && start >= storage.count / 2 {
            storage.removeFirst(start)   // compact: amortised O(1) per sample
            start = 0
        }
        storage.append(contentsOf: samples)
    }

    mutating func removeFirst(_ n: Int) {
        precondition(n <= count)
        start += n
    }

    /// Lends the waiting samples, oldest first.
    func withSamples<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start...])) }
    }
}

/// Summed Welch periodograms: Σ|X|², Σ|Y|², Σ conj(X)·Y per bin.
struct CrossSpectra: Sendable {
    var xx: [Double], yy: [Double], xyRe: [Double], xyIm: [Double]

    init(bins: Int) {
        xx = [Double](repeating: 0, count: bins)
        (yy, xyRe, xyIm) = (xx, xx, xx)
    }

    /// Adds one segment's interleaved (re, im) spectra.
    mutating func accumulate(x: UnsafeBufferPointer<Float>, y: UnsafeBufferPointer<Float>) {
        let bins = xx.count
        xx.withUnsafeMutableBufferPointer { xx in
            yy.withUnsafeMutableBufferPointer { yy in
                xyRe.withUnsafeMutableBufferPointer { re in
                    xyIm.withUnsafeMutableBufferPointer { im in
                        for k in 0..<bins {
                            let (xr, xi) = (Double(x[2 * k]), Double(x[2 * k + 1]))
                            let (yr, yi) = (Double(y[2 * k]), Double(y[2 * k + 1]))
                            xx[k] += xr * xr + xi * xi
                            yy[k] += yr * yr + yi * yi
                            re[k] += xr * yr + xi * yi
                            im[k] += xr * yi - xi * yr
                        }
                    }
                }
            }
        }
    }
}

/// Band levels of the transfer from summed spectra.
struct TransferGrid {
    let spectra: CrossSpectra
    let binWidthHz: Double
    static let floorDB = -300.0

    /// A band's summed reference power, output power, output power coherent with the reference
    /// (Σ|S_xy|²/S_xx per bin) and the output's noise (the rest).
    struct Sums {
        var x = 0.0, y = 0.0, coherent = 0.0
        var noise: Double { max(0, y - coherent) }
        /// 10·log10(ΣS_yy/ΣS_xx), absolute (not gain-relative).
        var levelDB: Double { TransferGrid.ratioDB(y, x) }
        /// The coherent output power over the reference's, dB.
        var coherentLevelDB: Double { TransferGrid.ratioDB(coherent, x) }
        /// The output's noise over the reference's power, dB.
        var noiseLevelDB: Double { TransferGrid.ratioDB(noise, x) }
    }

    /// The bins with centres in [f·2^(−1/96), f·2^(1/96)), or the nearest one.
    private func bins(centredOn f: Double) -> ClosedRange<Int> {
        let last = spectra.xx.count - 1
        let low = Int((f * pow(2, -1.0 / 96) / binWidthHz).rounded(.up))
        let high = Int((f * pow(2, 1.0 / 96) / binWidthHz).rounded(.up)) - 1
        if low <= high, low >= 0, high <= last { return low...high }
        let nearest = min(last, max(0, Int((f / binWidthHz).rounded())))
        return nearest...nearest
    }

    /// The sums over the 1/48-octave band centred on `f` (Hz).
    func sums(centredOn f: Double) -> Sums {
        var s = Sums()
        for k in bins(centredOn: f) {
            let (x, y) = (spectra.xx[k], spectra.yy[k])
            s.x += x
            s.y += y
            // |S_xy|²/S_xx ≤ S_yy (Cauchy–Schwarz); with no reference power nothing is coherent.
            if x > 0 { s.coherent += min(y, (spectra.xyRe[k] * spectra.xyRe[k] + spectra.xyIm[k] * spectra.xyIm[k]) / x) }
        }
        return s
    }

    /// 20·log10(|ΣS_xy|/ΣS_xx) over the same band.
    func crossLevelDB(centredOn f: Double) -> Double {
        var x = 0.0, re = 0.0, im = 0.0
        for k in bins(centredOn: f) { x += spectra.xx[k]; re += spectra.xyRe[k]; im += spectra.xyIm[k] }
        return Self.ratioDB(re * re + im * im, x * x)
    }

    static func ratioDB(_ numerator: Double, _ denominator: Double) -> Double {
        if numerator <= 0 { return floorDB }
        if denominator <= 0 { return -floorDB }
        return max(floorDB, min(-floorDB, Decibels.fromPower(numerator / denominator)))
    }

    /// The notch in a curve of gain-relative levels on the 1/48-octave grid: the deepest compared point,
    /// when it lies at least `depthDB` below the passband, and the −3 dB crossings either side of it
    /// (interpolated in log frequency between the grid points around them), each seen: a compared point
    /// at −3 dB or above within 1/12 octave beyond it (an edge's own bands may be left out, the window's
    /// leakage on a steep edge reading as noise). Nil when there is no such point, or an edge is not seen
    /// (the attenuation runs to the end of the reference's content: a low-pass is no notch).
    static func detectBand(_ points: [(f: Double, levelDB: Double, compared: Bool)], depthDB: Double) throws(ShadesError) -> OctaveBand? {
        guard let deepest = points.indices.filter({ points[$0].compared }).min(by: { points[$0].levelDB < points[$1].levelDB }),
              points[deepest].levelDB <= -depthDB else { return nil }
        var lower = deepest, upper = deepest
        while lower > 0, points[lower - 1].levelDB < -3 { lower -= 1 }
        while upper < points.count - 1, points[upper + 1].levelDB < -3 { upper += 1 }
        guard lower > 0, upper < points.count - 1 else { return nil }
        func seen(_ outside: Int, _ direction: Int) -> Bool {
            var i = outside
            while i >= 0, i < points.count, abs(log2(points[i].f / points[outside].f)) <= 1.0 / 12 + 1e-9 {
                if points[i].compared && points[i].levelDB >= -3 { return true }
                i += direction
            }
            return false
        }
        guard seen(lower - 1, -1), seen(upper + 1, 1) else { return nil }
        func crossing(_ inside: Int, _ outside: Int) -> Double {
            let t = (-3 - points[inside].levelDB) / (points[outside].levelDB - points[inside].levelDB)
            return points[inside].f * pow(points[outside].f / points[inside].f, min(1, max(0, t)))
        }
        let lowerEdge = crossing(lower, lower - 1), upperEdge = crossing(upper, upper + 1)
        return try OctaveBand(centreHz: (lowerEdge * upperEdge).squareRoot(),
                             widthOctaves: max(1.0 / 48, log2(upperEdge / lowerEdge)))
    }
}

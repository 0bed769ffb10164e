#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesPlatform

/// A ``HearingProfileFilter`` as an AutoEq-style parametric equaliser list (`Preamp: …`, `Filter N: ON PK Fc …
/// Hz Gain … dB Q …`), for equalisers without a convolver (Equalizer APO, EasyEffects' equaliser, phone apps).
/// Peaking biquads (the RBJ cookbook's) can only approximate the FIR: one every half octave from 125 Hz (Q 1.41),
/// their gains fitted so the cascade meets the compensation at their centres, and deep cuts across the notch's
/// band; ``worstCompensationErrorDB`` and ``shallowestNotchDB`` say how close it comes. Ears that differ get
/// Equalizer APO's `Channel: L` and `Channel: R` sections.
package struct ParametricProfile: Sendable {
    /// A peaking filter: centre (Hz), gain (dB), Q.
    package struct Peak: Sendable, Equatable {
        package var centreHz: Double
        package var gainDB: Double
        package var q: Double

        package init(centreHz: Double, gainDB: Double, q: Double) { (self.centreHz, self.gainDB, self.q) = (centreHz, gainDB, q) }
    }

    /// Each ear's filters, left then right.
    package let peaks: [[Peak]]
    /// The preamp of both ears, dB (the FIR's).
    package let preampDB: Double
    package let sampleRate: Double
    /// The largest |list − design| of either ear from 125 Hz to 16 kHz outside the notch's band and the half
    /// octaves beside it, dB.
    package let worstCompensationErrorDB: Double
    /// The least attenuation of the list in the notch's band, dB (negative).
    package let shallowestNotchDB: Double

    /// Q of the compensation peaks: an octave wide (between the −3 dB points of a large peak), half an octave apart.
    package static let compensationQ = 1.41
    /// The notch as six cuts of −30 dB, Q 4, spread over its band in log frequency.
    package static let notchCuts = 6
    package static let notchCutDB = -30.0
    package static let notchCutQ = 4.0

    package init(_ filter: HearingProfileFilter) {
        sampleRate = filter.sampleRate
        preampDB = filter.preampDB
        let bands = filter.notch.notches.map { (low: $0.centreHz * pow(2, -$0.widthOctaves / 2), high: $0.centreHz * pow(2, $0.widthOctaves / 2)) }
        let cuts = bands.flatMap { band in
            (0..<Self.notchCuts).map { i in
                Peak(centreHz: band.low * pow(band.high / band.low, (Double(i) + 0.5) / Double(Self.notchCuts)),
                     gainDB: Self.notchCutDB, q: Self.notchCutQ)
            }
        }
        let rate = filter.sampleRate
        var worst = 0.0, shallowest = -Double.infinity
        var ears: [[Peak]] = []
        for ear in 0..<2 {
            var peaks: [Peak] = []
            if let curve = filter.compensations[ear] {
                // Peaks half an octave apart from 125 Hz, but not within a quarter octave of a notch's band (the cuts'
                // place); fitted to the curve with the cuts, whose skirts reach beyond the band.
                let quarterOctave = pow(2.0, 0.25)
                let octaves: [Double] = (0..<15).map { 125 * pow(2.0, Double($0) / 2) }
                let centres = octaves.filter { (f: Double) -> Bool in
                    f < rate / 2 * 0.9 && !bands.contains { f > $0.low / quarterOctave && f < $0.high * quarterOctave }
                }
                peaks = centres.map { Peak(centreHz: $0, gainDB: curve.gainDB(atHz: $0), q: Self.compensationQ) }
                // Damped fixed-point fit, the cuts included: each gain moves by half the error at its centre.
                for _ in 0..<400 {
                    for i in peaks.indices {
                        peaks[i].gainDB += 0.5 * (curve.gainDB(atHz: peaks[i].centreHz) - Self.responseDB(peaks + cuts, atHz: peaks[i].centreHz, rate: rate))
                    }
                }
            }
            let all = peaks + cuts
            ears.append(all)
            var f = 125.0
            while f <= min(16_000, rate / 2 * 0.9) {
                let inNotchRegion = bands.contains { f > $0.low / 2.squareRoot() && f < $0.high * 2.squareRoot() }
                if !inNotchRegion {
                    let design = filter.compensations[ear]?.gainDB(atHz: f) ?? 0
                    worst = max(worst, abs(Self.responseDB(all, atHz: f, rate: rate) - design))
                }
                f *= pow(2, 1.0 / 48)
            }
            for band in bands {
                var g = band.low
                while g <= band.high {
                    shallowest = max(shallowest, Self.responseDB(all, atHz: g, rate: rate) - (filter.compensations[ear]?.gainDB(atHz: g) ?? 0))
                    g *= pow(2, 1.0 / 96)
                }
            }
        }
        peaks = ears
        worstCompensationErrorDB = worst
        shallowestNotchDB = shallowest
    }

    /// The cascade's gain at `frequencyHz`, dB.
    package static func responseDB(_ peaks: [Peak], atHz frequencyHz: Double, rate: Double) -> Double {
        peaks.reduce(0) { $0 + peakResponseDB($1, atHz: frequencyHz, rate: rate) }
    }

    /// One RBJ peaking biquad's gain at `frequencyHz`, dB.
    package static func peakResponseDB(_ peak: Peak, atHz frequencyHz: Double, rate: Double) -> Double {
        let a = pow(10, peak.gainDB / 40)
        let w0 = 2 * Double.pi * peak.centreHz / rate
        let alpha = sin(w0) / (2 * peak.q)
        let (b0, b1, b2) = (1 + alpha * a, -2 * cos(w0), 1 - alpha * a)
        let (a0, a1, a2) = (1 + alpha / a, -2 * cos(w0), 1 - alpha / a)
        let w = 2 * Double.pi * frequencyHz / rate
        func magnitudeSquared(_ c0: Double, _ c1: Double, _ c2: Double) -> Double {
            let re = c0 + c1 * cos(w) + c2 * cos(2 * w), im = -(c1 * sin(w) + c2 * sin(2 * w))
            return re * re + im * im
        }
        return 10 * log10(magnitudeSquared(b0, b1, b2) / magnitudeSquared(a0, a1, a2))
    }

    /// The list's text: AutoEq's format, with `Channel:` sections when the ears differ.
    package func text(comment: String) -> String {
        var lines = ["# \(comment)",
                     "# Peaking biquads approximate the impulse response: compensation within \(formatNumber(worstCompensationErrorDB, roundedTo: 1)) dB "
                     + "outside the notch, notch at least \(formatNumber(-shallowestNotchDB, roundedTo: 0)) dB deep (the impulse response: ≥ 100 dB)."]
        func filters(_ peaks: [Peak]) -> [String] {
            peaks.enumerated().map { i, p in
                "Filter \(i + 1): ON PK Fc \(formatNumber(p.centreHz.rounded())) Hz Gain \(formatNumber(p.gainDB, roundedTo: 1)) dB Q \(formatNumber(p.q, roundedTo: 2))"
            }
        }
        let preamp = "Preamp: \(formatNumber(preampDB, roundedTo: 1)) dB"
        if peaks[0] == peaks[1] {
            lines += [preamp] + filters(peaks[0])
        } else {
            lines += ["Channel: L", preamp] + filters(peaks[0]) + ["Channel: R", preamp] + filters(peaks[1])
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

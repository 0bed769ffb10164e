#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesAnalysis
import ShadesDSP

/// The human-readable form of an analysis report.
enum ReportTable {
    static func text(_ r: FileAnalysisReport) -> String {
        var lines: [String] = []
        func row(_ label: String, _ text: String) { lines.append(label.padded(to: 12) + text) }
        func db(_ value: Double?, _ digits: Int = 2) -> String {
            guard let value else { return "-inf" }
            return value.isFinite ? String(format: "%.\(digits)f", value) : (value < 0 ? "-inf" : "inf")
        }

        row("file", "\(r.file) (\(r.container), \(Int(r.sampleRate)) Hz, \(r.channels) channel\(r.channels == 1 ? "" : "s"), \(String(format: "%.3f", r.durationSeconds)) s)")
        if let comment = r.comment { row("comment", comment) }
        row("levels", "channel   RMS dBFS   peak dBFS   clipped   DC")
        for (i, c) in r.levels.channels.enumerated() {
            row("", "\(String(i + 1).padded(to: 10))\(db(c.rmsDBFS).padded(to: 11))\(db(c.samplePeakDBFS).padded(to: 12))\(String(c.clippedSamples).padded(to: 10))\(String(format: "%.6f", abs(c.dcOffset) < 5e-7 ? 0 : c.dcOffset))")
        }
        if let correlation = r.levels.correlation { row("", "inter-channel correlation \(String(format: "%.4f", correlation))") }
        let l = r.loudness
        row("loudness", "integrated \(db(l.integratedLUFS, 1)) LUFS   range \(db(l.loudnessRangeLU, 1)) LU   true peak \(db(l.truePeakDBTP)) dBTP   sample peak \(db(l.samplePeakDBFS)) dBFS")
        if let s = r.spectrum {
            let colour = s.nearestColourName.map { "nearest \($0)" } ?? "not noise-like: flatness \(String(format: "%.2f", s.colourFlatness)), no colour"
            var text = "slope \(String(format: "%.3f", s.slopeDecibelsPerOctave)) dB/oct (β \(String(format: "%.3f", s.estimatedBeta)), \(colour))"
            text += "   largest band deviation from the fit \(String(format: "%.2f", s.largestFitDeviationDB)) dB"
            if let ideal = s.largestIdealDeviationDB, let beta = s.expectedBeta {
                text += ", from β \(String(format: "%g", beta)) \(String(format: "%.2f", ideal)) dB"
            }
            row("spectrum", text)
            row("", "third-octave band levels (dB re full scale², \(Int(s.fitLowerHz))–\(Int(s.fitUpperHz)) Hz fitted):")
            let cells = s.bands.map { band in
                "\(hertz(band.centreHz)) \(db(band.levelDB, 1))".padded(to: 17)
            }
            for start in stride(from: 0, to: cells.count, by: 5) {
                row("", cells[start..<min(cells.count, start + 5)].joined())
            }
        } else {
            row("spectrum", "silent")
        }
        func tone(_ t: ToneEstimate) -> String {
            "\(String(format: "%.4f", t.frequencyHz)) Hz   level \(db(t.levelDBFS)) dBFS   THD+N \(db(t.thdPlusNoiseDB, 1)) dB"
                + " (first \(String(format: "%.1f", Double(t.analysedFrames) / r.sampleRate)) s"
        }
        if r.channelTones.count > 1 && r.channelTones.contains(where: { $0 != nil }) {
            // Each ear's own: a sound per ear, binaural beats.
            for (c, t) in r.channelTones.enumerated() {
                row(c == 0 ? "tone" : "", "channel \(c + 1): " + (t.map { tone($0) + ")" } ?? "no tone (THD+N above \(Int(FileAnalysis.toneThresholdDB)) dB)"))
            }
        } else if let t = r.tone {
            row("tone", tone(t) + " of channel 1)")
        }
        if let m = r.modulation {
            row("modulation", "\(String(format: "%.4f", m.rateHz)) Hz   depth \(String(format: "%.1f", m.depth * 100)) %   (first \(String(format: "%.0f", m.analysedSeconds)) s of channel 1)")
        }
        // The seam is a finding only for a loop (its comment says loop=true, or --loop).
        for (i, s) in r.seams.enumerated() {
            row(i == 0 ? "loop seam" : "", "channel \(i + 1): seam step at percentile \(String(format: "%.1f", s.firstDifferencePercentile)) (first difference), \(String(format: "%.1f", s.secondDifferencePercentile)) (second): \(s.isSeamless ? "seamless" : "audible jump")")
        }
        let a = r.ambient
        var ambient = "LAeq \(db(a.laeqDBFS, 1)) dBFS(A)   LAFmax \(db(a.lafmaxDBFS, 1)) dBFS(A)"
        if let spl = a.laeqDBA { ambient += "   LAeq \(db(spl, 1)) dB(A) SPL   LAFmax \(db(a.lafmaxDBA, 1)) dB(A) SPL" }
        row("ambient", ambient)
        if let dose = a.doseNIOSHPercent, let listening = a.listeningSeconds {
            var text = "NIOSH daily dose \(String(format: "%.1f", dose)) % for \(duration(listening))"
            if let allowed = a.allowedListeningSeconds { text += " (100 % after \(duration(allowed)))" }
            row("", text)
        }
        if let n = r.notch {
            if let from = r.referenceSampleRate, from != r.sampleRate {
                row("reference", "resampled from \(formatNumber(from)) Hz to \(formatNumber(r.sampleRate)) Hz (libsamplerate, best quality)")
            }
            let passband = spans(n.comparedPassbandHz)
            guard let band = n.band else {
                row("notch", "none found (a notch: a compared band \(formatNumber(NotchCheckAccumulator.detectionDepthDB)) dB below the passband, both −3 dB edges seen)")
                let largest = n.curve.filter(\.compared).max { abs($0.levelDB) < abs($1.levelDB) }
                row("", "the output departs from the reference by up to \(largest.map { db(abs($0.levelDB), 3) + " dB (at " + hertz($0.frequencyHz) + ")" } ?? "-") over \(passband)   gain \(db(n.passbandGainDB)) dB   lag \(n.lagSamples) samples")
                return lines.joined(separator: "\n")
            }
            row("notch", "\(hertz(band.lowerEdgeHz))–\(hertz(band.upperEdgeHz)) (\(String(format: "%g", band.widthOctaves)) oct at \(hertz(band.centreHz))\(n.bandWasDetected ? ", found" : ""))")
            let judged = n.judgedInBandHz.isEmpty ? "no part of the band" : spans(n.judgedInBandHz)
            row("", "compared where the reference is at least \(formatNumber(NotchCheckAccumulator.comparedMarginDB)) dB above the output's noise: \(judged); passband \(passband)")
            var text = "depth \(n.depthDB.map { db($0, 1) + " dB" } ?? "not compared") at the centre"
            text += "   worst in band \(n.worstInBandDB.map { db($0, 1) + " dB" } ?? "not compared")"
            if let noise = n.inBandNoiseDB { text += " (output noise up to \(db(noise, 1)) dB)" }
            text += "   passband ripple \(n.passbandRippleDB.map { String(format: "%.3f dB", $0) } ?? "not compared")   lag \(n.lagSamples) samples"
            row("", text)
        }
        return lines.joined(separator: "\n")
    }

    static func hertz(_ f: Double) -> String {
        f >= 1000 ? String(format: "%g kHz", (f / 10).rounded() / 100) : String(format: "%g Hz", (f * 10).rounded() / 10)
    }

    /// "8.67–15.6 kHz", "20 Hz–8.01 kHz".
    static func span(_ range: ClosedRange<Double>) -> String {
        let (low, high) = (hertz(range.lowerBound), hertz(range.upperBound))
        if low.hasSuffix(" kHz") && high.hasSuffix(" kHz") { return low.dropLast(4) + "–" + high }
        return low + "–" + high
    }

    /// Up to three ranges as they are; more as their overall span and the count of gaps.
    static func spans(_ ranges: [ClosedRange<Double>]) -> String {
        guard let first = ranges.first, let last = ranges.last else { return "none" }
        if ranges.count <= 3 { return ranges.map(span).joined(separator: ", ") }
        return span(first.lowerBound...last.upperBound) + " with \(ranges.count - 1) gaps"
    }

    static func duration(_ seconds: Double) -> String {
        seconds >= 3600 ? String(format: "%.1f h", seconds / 3600) : (seconds >= 60 ? String(format: "%.1f min", seconds / 60) : String(format: "%.1f s", seconds))
    }
}

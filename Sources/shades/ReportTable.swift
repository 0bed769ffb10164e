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
            var text = "slope \(String(format: "%.3f", s.slopeDecibelsPerOctave)) dB/oct (β \(String(format: "%.3f", s.estimatedBeta)), nearest \(s.nearestColourName))"
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
            row("notch", "\(hertz(n.band.lowerEdgeHz))–\(hertz(n.band.upperEdgeHz)) (\(String(format: "%g", n.band.widthOctaves)) oct at \(hertz(n.band.centreHz))\(n.bandWasDetected ? ", found" : ""))")
            row("", "depth \(db(n.depthDB, 1)) dB at the centre   worst in band \(db(n.worstInBandDB, 1)) dB   passband ripple \(String(format: "%.3f", n.passbandRippleDB)) dB   lag \(n.lagSamples) samples")
        }
        return lines.joined(separator: "\n")
    }

    static func hertz(_ f: Double) -> String {
        f >= 1000 ? String(format: "%g kHz", (f / 10).rounded() / 100) : String(format: "%g Hz", (f * 10).rounded() / 10)
    }

    static func duration(_ seconds: Double) -> String {
        seconds >= 3600 ? String(format: "%.1f h", seconds / 3600) : (seconds >= 60 ? String(format: "%.1f min", seconds / 60) : String(format: "%.1f s", seconds))
    }
}

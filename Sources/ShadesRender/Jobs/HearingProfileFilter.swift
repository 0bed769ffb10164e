#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesPlatform
import ShadesIO

/// A hearing profile for everything a desktop plays, one filter per ear: the ear's audiogram compensation (a
/// gain curve, e.g. the half-gain rule) and the tinnitus notch in one linear-phase FIR, the way a hearing aid
/// amplifies with a notch at the tinnitus frequency (Signia's notch therapy). Each ear's kernel is the
/// shaping FIR (``NotchDesign/init(shaping:sampleRate:smoothingHz:)``, smoothed over 20 Hz: audiogram points
/// are ≥ 125 Hz apart) convolved with the notch kernel `shades notch` uses (≥ 100 dB deep in the band), then
/// lowered by the largest gain of either ear (the preamp), so the filter never raises a full-scale sound
/// above full scale: turn the volume up by ``preampDB``'s magnitude instead.
///
/// Both ears' kernels are symmetric and equally long, so both are delayed by ``latencyFrames``.
package struct HearingProfileFilter: Sendable {
    /// The notch (both ears).
    package let notch: NotchDesign
    /// Each ear's compensation, left then right (dB at frequencies; nil: none, the notch alone).
    package let compensations: [GainCurve?]
    /// Each ear's kernel, left then right (2·``latencyFrames`` + 1 taps, symmetric), preamp included.
    package let taps: [[Float]]
    /// The gain applied to both ears so the largest compensation is 0 dB: minus that compensation, dB.
    package let preampDB: Double

    /// Smoothing of the compensation's frequency sampling, Hz (M = rate / 20 taps each side: 2,400 at 48 kHz).
    package static let compensationSmoothingHz = 20.0

    /// The kernels for `notch` and each ear's `compensations` (left, right) at the notch's rate.
    package init(notch: NotchDesign, compensations: [GainCurve?]) throws(ShadesError) {
        precondition(compensations.count == 2, "one compensation per ear")
        self.notch = notch
        self.compensations = compensations
        let largest = compensations.compactMap { $0?.gainsDB.max() }.max() ?? 0
        preampDB = -max(0, largest)
        let notchTaps = NotchFilterExport.impulseResponse(of: notch).map(Double.init)
        var shapingTaps: [[Double]?] = []
        for curve in compensations {
            guard let curve else { shapingTaps.append(nil); continue }
            let design = try NotchDesign(shaping: curve, sampleRate: notch.sampleRate, smoothingHz: Self.compensationSmoothingHz)
            let m = design.halfLength
            shapingTaps.append((0...(2 * m)).map { design.halfTaps[abs($0 - m)] })
        }
        let longest = shapingTaps.compactMap { $0?.count }.max() ?? 1
        let preamp = Decibels.amplitude(preampDB)
        taps = shapingTaps.map { shaping in
            // Without a compensation: a unit impulse as long as the other ear's shaping, so both delays match.
            var kernel = shaping ?? [Double](repeating: 0, count: longest)
            if shaping == nil { kernel[longest / 2] = 1 }
            return Self.convolve(kernel, notchTaps).map { Float($0 * preamp) }
        }
    }

    /// The delay of both kernels, frames (half their length).
    package var latencyFrames: Int { taps[0].count / 2 }
    /// The notches as text ("6000 Hz 1 oct").
    package var notchSummary: String { notch.notches.summaryText }
    /// The sample rate, Hz.
    package var sampleRate: Double { notch.sampleRate }

    /// Writes both kernels to `path` as a stereo 32-bit float WAV (left ear, right ear), atomically: the
    /// impulse response PipeWire's convolver (one channel each) and EasyEffects' convolver (a stereo file) load.
    package func writeImpulseResponse(to path: String) throws(ShadesError) {
        let buffer = AudioBuffer(channelCount: 2, frameCapacity: taps[0].count)
        for ear in 0..<2 { buffer.withChannel(ear) { _ = $0.update(fromContentsOf: taps[ear]) } }
        let comment = "\(AudioFileWriter.software) hearing-profile impulse response notch=\(notchSummary) preamp=\(formatNumber(preampDB, roundedTo: 2))dB "
            + "rate=\(formatNumber(sampleRate)) taps=\(taps[0].count) latency=\(latencyFrames)"
        try FileSink.write(buffer, sampleRate: Int(sampleRate), gains: [1, 1], to: path, sampleFormat: .f32, ditherKey: 0, comment: comment)
    }

    /// Direct convolution in Double (kernels of a few thousand taps: well under a second).
    private static func convolve(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: a.count + b.count - 1)
        for (i, x) in a.enumerated() where x != 0 {
            for (j, y) in b.enumerated() { out[i + j] += x * y }
        }
        return out
    }
}

import ShadesAnalysis
import ShadesDSP

/// Integrated loudness from libebur128 and true peak per channel from `TruePeakMeter` (libebur128's
/// interpolator in SIMD, within 0.01 dB of `ebur128_true_peak`, tested; the library's own scalar true
/// peak was most of a catalogue build's time). No loudness range: nothing here reads it.
struct LoudnessAndPeak {
    private let meter: LoudnessMeter
    private var peaks: [TruePeakMeter]

    init(channelCount: Int, sampleRate: Double) throws(ShadesError) {
        meter = try LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate, truePeak: false, range: false)
        peaks = Array(repeating: TruePeakMeter(sampleRate: sampleRate), count: channelCount)
    }

    mutating func add(_ planes: [UnsafeBufferPointer<Float>]) throws(ShadesError) {
        try meter.add(planes)
        for c in planes.indices { peaks[c].add(planes[c]) }
    }

    /// (integrated loudness in LUFS or nil for silence, true peak in dBTP or nil, sample peak in dBFS or nil).
    func result() throws(ShadesError) -> (integratedLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double?) {
        let report = try meter.result()
        let peak = peaks.map(\.peak).max() ?? 0
        return (report.integratedLUFS, peak > 0 ? Decibels.fromAmplitude(peak) : nil, report.samplePeakDBFS)
    }
}

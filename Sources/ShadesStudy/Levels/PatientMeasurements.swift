#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesProcedures

/// One patient's hearing measurements that levels refer to: the audiogram (`shades audiometry -o`: pure-tone
/// thresholds per ear and frequency, dB HL or dB re full scale) and the minimum masking level (`shades mml -o`:
/// the noise's RMS in dBFS). Either may be missing; a level that needs it is then refused.
public struct PatientMeasurements: Sendable, Equatable {
    /// The patient's id, named in every refusal.
    public let id: String
    public let audiogram: Audiogram?
    public let mml: MinimumMaskingLevel.Result?

    public init(id: String, audiogram: Audiogram? = nil, mml: MinimumMaskingLevel.Result? = nil) {
        (self.id, self.audiogram, self.mml) = (id, audiogram, mml)
    }

    /// "patient P07": what every refusal about this patient starts with (``ShadesError/context``).
    public var context: String { "patient \(id)" }

    /// Reads the JSON files `shades audiometry -o` and `shades mml -o` write (either path may be nil); a
    /// missing or unreadable file is refused in one line naming the patient and the file.
    public static func read(id: String, audiogramPath: String?, mmlPath: String?) throws(ShadesError) -> PatientMeasurements {
        let audiogram = try audiogramPath.map { (p: String) throws(ShadesError) in try decode(Audiogram.self, p, id: id, what: "`shades audiometry`") }
        if let audiogram, let audiogramPath { try checkThresholds(of: audiogram, path: audiogramPath, id: id) }
        return PatientMeasurements(id: id, audiogram: audiogram,
                                   mml: try mmlPath.map { (p: String) throws(ShadesError) in try decode(MinimumMaskingLevel.Result.self, p, id: id, what: "`shades mml`") })
    }

    /// Refuses a threshold outside what an audiometer measures (``Audiometry/hearingLevelRangeDB``,
    /// ``Audiometry/fullScaleRangeDB``): a typed -50 dB HL would put a sound in dB SL below hearing.
    private static func checkThresholds(of audiogram: Audiogram, path: String, id: String) throws(ShadesError) {
        let range = audiogram.scale == .hearingLevel ? Audiometry.hearingLevelRangeDB : Audiometry.fullScaleRangeDB
        for (ear, thresholds) in [("left", audiogram.left), ("right", audiogram.right)] {
            for threshold in thresholds ?? [] {
                guard let dB = threshold.thresholdDB, !range.contains(dB) else { continue }
                throw ShadesError(.input, "patient \(id): \(path): the \(ear) ear's threshold at \(formatNumber(threshold.frequencyHz)) Hz, "
                                  + "\(formatNumber(dB)) \(audiogram.scale.rawValue), is out of range "
                                  + "(allowed: \(formatNumber(range.lowerBound)) … \(formatNumber(range.upperBound)) \(audiogram.scale.rawValue))")
            }
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ path: String, id: String, what: String) throws(ShadesError) -> T {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, upTo: 16 << 20) } catch { throw error.within("patient \(id)") }
        do { return try JSONDecoder().decode(type, from: Data(bytes)) } catch {
            throw ShadesError(.input, "patient \(id): \(path) is not a \(what) result (allowed: the JSON \(what) -o FILE writes)")
        }
    }

    /// The threshold of `ear` (left or right) at `frequencyHz`, in the audiogram's scale (dB HL, or dB re full
    /// scale: a tone's RMS in dBFS): linear in log frequency between the two measured frequencies around it,
    /// T = T₀ + (T₁ − T₀)·log(f/f₀)/log(f₁/f₀). Frequencies with no response are not measured thresholds.
    /// Refused, naming the patient, without an audiogram, for an ear with no thresholds, and for a frequency
    /// outside the lowest … highest measured one (never extrapolated).
    public func thresholdDB(atHz frequencyHz: Double, ear: Ears) throws(ShadesError) -> Double {
        guard let audiogram else { throw ShadesError(.input, "no audiogram (allowed: the JSON `shades audiometry -o FILE` writes)").within(context) }
        guard ear != .both else { throw ShadesError(.parameter, "a threshold is one ear's (allowed: left or right)", parameter: .ear).within(context) }
        let points = ((ear == .left ? audiogram.left : audiogram.right) ?? []).compactMap { t in t.thresholdDB.map { (t.frequencyHz, $0) } }
            .sorted { $0.0 < $1.0 }
        guard let low = points.first?.0, let high = points.last?.0 else {
            throw ShadesError(.input, "the \(ear.rawValue) ear has no threshold in the audiogram (allowed: an ear with measured thresholds)").within(context)
        }
        guard frequencyHz >= low * (1 - 1e-9), frequencyHz <= high * (1 + 1e-9) else {
            throw ShadesError(.input, "\(formatNumber(frequencyHz)) Hz is outside the \(ear.rawValue) ear's audiogram "
                              + "(allowed: \(formatNumber(low)) … \(formatNumber(high)) Hz, the measured frequencies; no extrapolation)", parameter: .frequency)
                .within(context)
        }
        return GainCurve.interpolate(points, atHz: frequencyHz)
    }

    /// The threshold of `ear` at `frequencyHz` as a pure tone's RMS level in dBFS through `calibration`: dB HL
    /// plus the calibration's 0 dB HL level there (each interpolated in log frequency), or dB re full scale
    /// as it is (measured through the same headphones and volume).
    public func thresholdDBFS(atHz frequencyHz: Double, ear: Ears, calibration: HeadphoneCalibration) throws(ShadesError) -> Double {
        let threshold = try thresholdDB(atHz: frequencyHz, ear: ear)
        switch audiogram!.scale {
        case .fullScale: return threshold
        case .hearingLevel:
            do { return try calibration.dBFS(hearingLevelDB: threshold, atHz: frequencyHz) } catch { throw error.within(context) }
        }
    }

    /// The minimum masking level, dBFS (the narrow-band noise's RMS; through the same headphones and volume);
    /// refused, naming the patient, without an MML result or when it found none.
    public func mmlDBFS() throws(ShadesError) -> Double {
        guard let mml else { throw ShadesError(.input, "no minimum masking level (allowed: the JSON `shades mml -o FILE` writes)").within(context) }
        guard let level = mml.levelDBFS else {
            throw ShadesError(.input, "the MML result has no level (the tinnitus was heard at the highest noise level)").within(context)
        }
        return level
    }
}

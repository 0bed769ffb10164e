#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesProcedures
import ShadesRender

/// One set of headphones at one volume setting, calibrated: what a level in dBFS (RMS) is in dB SPL and in
/// dB HL, per frequency (headphones differ by frequency; ISO 389 reference thresholds do too). It reads the
/// file `shades audiometry --calibration` reads, extended (Presets/studies/README.md):
///
///     {"headphones": "…", "fullScaleDBSPL": {"1000": 100, …}, "retsplDB": {"1000": 7, …},
///      "referenceDBFS": {"1000": -93, …}, "broadbandFullScaleDBSPL": 99}
///
/// At a frequency f: S(f) = `fullScaleDBSPL`, the dB SPL of a pure tone at 0 dBFS RMS; R(f) = `retsplDB`,
/// the reference equivalent threshold SPL of the transducer (0 dB HL, ISO 389-1/-2/-5/-8); H(f) =
/// `referenceDBFS`, the tone level in dBFS that is 0 dB HL (the old form). They are one triangle, H = R − S:
/// any two give the third, so an old file (H only) still gives dB HL, and H with R gives dB SPL too. A file
/// holding all three at a frequency must agree there within ``consistencyToleranceDB``.
///
/// Between held frequencies each table is linear in log frequency; outside them a frequency is refused (no
/// extrapolation). A sound with no defining frequency (broadband noise, music) uses
/// `broadbandFullScaleDBSPL`, the dB SPL of broadband (pink) noise at 0 dBFS RMS.
public struct HeadphoneCalibration: Sendable, Codable, Equatable {
    /// The headphones and volume setting it holds for.
    public var headphones: String?
    /// H(f): per frequency in Hz (the key, e.g. "1000"), the pure tone's RMS level in dBFS at 0 dB HL.
    public var referenceDBFS: [String: Double]?
    /// S(f): per frequency, the dB SPL of a pure tone at 0 dBFS RMS (a coupler or ear-simulator reading of a
    /// known tone, plus the tone's distance below full scale).
    public var fullScaleDBSPL: [String: Double]?
    /// R(f): per frequency, the transducer's reference equivalent threshold SPL, dB SPL (ISO 389).
    public var retsplDB: [String: Double]?
    /// The dB SPL of broadband (pink) noise at 0 dBFS RMS, for sounds with no defining frequency.
    public var broadbandFullScaleDBSPL: Double?

    /// Largest disagreement, dB, between H and R − S where a file holds all three.
    public static let consistencyToleranceDB = 0.5
    /// Frequencies a table may hold, Hz.
    static let allowedFrequencyHz: ClosedRange<Double> = 20...24_000

    public init(headphones: String? = nil, referenceDBFS: [Double: Double]? = nil, fullScaleDBSPL: [Double: Double]? = nil,
                retsplDB: [Double: Double]? = nil, broadbandFullScaleDBSPL: Double? = nil) throws(ShadesError) {
        func keyed(_ table: [Double: Double]?) -> [String: Double]? {
            table.map { Dictionary(uniqueKeysWithValues: $0.map { (formatNumber($0.key), $0.value) }) }
        }
        self.headphones = headphones
        (self.referenceDBFS, self.fullScaleDBSPL, self.retsplDB) = (keyed(referenceDBFS), keyed(fullScaleDBSPL), keyed(retsplDB))
        self.broadbandFullScaleDBSPL = broadbandFullScaleDBSPL
        try validate()
    }

    public init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case headphones, referenceDBFS, fullScaleDBSPL, retsplDB, broadbandFullScaleDBSPL }
        let c = try decoder.container(keyedBy: Keys.self)
        headphones = try c.decodeIfPresent(String.self, forKey: .headphones)
        referenceDBFS = try c.decodeIfPresent([String: Double].self, forKey: .referenceDBFS)
        fullScaleDBSPL = try c.decodeIfPresent([String: Double].self, forKey: .fullScaleDBSPL)
        retsplDB = try c.decodeIfPresent([String: Double].self, forKey: .retsplDB)
        broadbandFullScaleDBSPL = try c.decodeIfPresent(Double.self, forKey: .broadbandFullScaleDBSPL)
        try validate()
    }

    /// The calibration in the JSON file at `path` (up to 1 MB); refused in one line naming the file when it
    /// cannot be read (an input error), is not JSON of this form, or its values are out of range (parameter
    /// errors, as the procedures' files are).
    public static func read(_ path: String) throws(ShadesError) -> HeadphoneCalibration {
        let bytes = try FileSystem.readFile(path, upTo: 1 << 20)
        do { return try JSONDecoder().decode(HeadphoneCalibration.self, from: Data(bytes)) } catch let error as ShadesError {
            throw ShadesError(.parameter, "\(path): \(error.description)", parameter: .calibration)
        } catch {
            throw ShadesError(.parameter, "\(path): not a headphone calibration (allowed: JSON with referenceDBFS, fullScaleDBSPL, "
                              + "retsplDB per frequency and broadbandFullScaleDBSPL, Presets/studies/README.md)", parameter: .calibration)
        }
    }

    // MARK: Levels

    /// The dB SPL of a sound at `dBFS` RMS whose level refers to `reference` (its defining frequency, or
    /// broadband); refused when the calibration gives no dB SPL there.
    public func splDB(dBFS: Double, at reference: HearingReference) throws(ShadesError) -> Double {
        dBFS + (try fullScaleSPL(at: reference))
    }

    /// The RMS level in dBFS of a sound at `splDB` dB SPL whose level refers to `reference`.
    public func dBFS(splDB: Double, at reference: HearingReference) throws(ShadesError) -> Double {
        splDB - (try fullScaleSPL(at: reference))
    }

    /// The pure tone's RMS level in dBFS at `hearingLevelDB` dB HL, at `frequencyHz`: dB HL + H(f).
    public func dBFS(hearingLevelDB: Double, atHz frequencyHz: Double) throws(ShadesError) -> Double {
        hearingLevelDB + (try referenceLevelDBFS(atHz: frequencyHz))
    }

    /// S: dB SPL at 0 dBFS RMS, at the reference's frequency or broadband.
    public func fullScaleSPL(at reference: HearingReference) throws(ShadesError) -> Double {
        switch reference {
        case .frequency(let f, _): return try fullScaleSPL(atHz: f)
        case .broadband(let sound):
            guard let broadbandFullScaleDBSPL else {
                throw ShadesError(.parameter, "the calibration gives no broadband dB SPL, which \(sound) needs "
                                  + "(allowed: a calibration with broadbandFullScaleDBSPL)", parameter: .calibration)
            }
            return broadbandFullScaleDBSPL
        }
    }

    /// S(f), dB SPL of a tone at 0 dBFS RMS: `fullScaleDBSPL`, else R − H.
    public func fullScaleSPL(atHz f: Double) throws(ShadesError) -> Double {
        if let s = Self.table(fullScaleDBSPL), Self.covers(s, f) { return GainCurve.interpolate(s, atHz: f) }
        if let r = Self.table(retsplDB), let h = Self.table(referenceDBFS), Self.covers(r, f), Self.covers(h, f) {
            return GainCurve.interpolate(r, atHz: f) - GainCurve.interpolate(h, atHz: f)
        }
        throw refusal("dB SPL", atHz: f, spans: [Self.span([fullScaleDBSPL]), Self.span([retsplDB, referenceDBFS])],
                      needs: "fullScaleDBSPL, or retsplDB with referenceDBFS")
    }

    /// H(f), the tone level in dBFS at 0 dB HL: `referenceDBFS`, else R − S.
    public func referenceLevelDBFS(atHz f: Double) throws(ShadesError) -> Double {
        if let h = Self.table(referenceDBFS), Self.covers(h, f) { return GainCurve.interpolate(h, atHz: f) }
        if let r = Self.table(retsplDB), let s = Self.table(fullScaleDBSPL), Self.covers(r, f), Self.covers(s, f) {
            return GainCurve.interpolate(r, atHz: f) - GainCurve.interpolate(s, atHz: f)
        }
        throw refusal("dB HL", atHz: f, spans: [Self.span([referenceDBFS]), Self.span([retsplDB, fullScaleDBSPL])],
                      needs: "referenceDBFS, or retsplDB with fullScaleDBSPL")
    }

    /// The dB HL part for `shades audiometry`: H at every frequency a table holds that H is known at.
    public func audiometerCalibration() -> AudiometerCalibration {
        let held = Set([referenceDBFS, fullScaleDBSPL, retsplDB].compactMap { $0 }.flatMap { $0.keys.compactMap(Double.init) })
        var levels: [Double: Double] = [:]
        for f in held { levels[f] = try? referenceLevelDBFS(atHz: f) }
        return AudiometerCalibration(headphones: headphones, referenceDBFS: levels)
    }

    // MARK: Tables

    /// A table as (frequency, value) sorted by frequency; nil for none or an empty one.
    static func table(_ keyed: [String: Double]?) -> [(Double, Double)]? {
        guard let keyed, !keyed.isEmpty else { return nil }
        return keyed.compactMap { key, value in Double(key).map { ($0, value) } }.sorted { $0.0 < $1.0 }
    }

    /// True when `f` lies within the table's frequencies (a relative 1e-9 beyond its ends allowed).
    static func covers(_ table: [(Double, Double)], _ f: Double) -> Bool {
        guard let low = table.first?.0, let high = table.last?.0 else { return false }
        return f >= low * (1 - 1e-9) && f <= high * (1 + 1e-9)
    }

    /// The frequencies, Hz, where every one of `tables` holds a value (from the highest lowest to the lowest
    /// highest); nil when one is empty or they do not overlap.
    private static func span(_ tables: [[String: Double]?]) -> ClosedRange<Double>? {
        var (low, high) = (-Double.infinity, Double.infinity)
        for keyed in tables {
            guard let t = table(keyed) else { return nil }
            (low, high) = (max(low, t.first!.0), min(high, t.last!.0))
        }
        return low <= high ? low...high : nil
    }

    /// "the calibration gives no dB SPL at 12000 Hz (allowed: 250 … 8000 Hz, the frequencies it holds; …)".
    private func refusal(_ scale: String, atHz f: Double, spans: [ClosedRange<Double>?], needs: String) -> ShadesError {
        var ranges: [String] = []
        for span in spans.compactMap({ $0 }) {
            let range = span.lowerBound == span.upperBound ? "\(formatNumber(span.lowerBound)) Hz"
                : "\(formatNumber(span.lowerBound)) … \(formatNumber(span.upperBound)) Hz"
            if !ranges.contains(range) { ranges.append(range) }
        }
        let allowed = ranges.isEmpty ? "a calibration with \(needs)" : "\(ranges.joined(separator: " or ")), the frequencies it holds; no extrapolation"
        return ShadesError(.parameter, "the calibration gives no \(scale) at \(formatNumber(f)) Hz (allowed: \(allowed))", parameter: .calibration)
    }

    /// Checks every key and value; the error names the table, the entry and the allowed range.
    private func validate() throws(ShadesError) {
        let tables: [(String, [String: Double]?, ClosedRange<Double>, String)] = [
            ("referenceDBFS", referenceDBFS, -200...0, "dBFS"), ("fullScaleDBSPL", fullScaleDBSPL, 0...200, "dB SPL"),
            ("retsplDB", retsplDB, -20...120, "dB SPL")]
        for (name, table, range, unit) in tables {
            for (key, value) in table ?? [:] {
                guard let f = Double(key), Self.allowedFrequencyHz.contains(f) else {
                    throw ShadesError(.parameter, "calibration \(name) key '\(key)' is not a frequency (allowed: 20 … 24000 Hz, e.g. \"1000\")",
                                      parameter: .calibration)
                }
                guard value.isFinite, range.contains(value) else {
                    throw ShadesError(.parameter, "calibration \(name) at \(key) Hz, \(formatNumber(value)) \(unit), is out of range "
                                      + "(allowed: \(formatNumber(range.lowerBound)) … \(formatNumber(range.upperBound)) \(unit))", parameter: .calibration)
                }
            }
        }
        if let b = broadbandFullScaleDBSPL, !(b.isFinite && (0...200).contains(b)) {
            throw ShadesError(.parameter, "calibration broadbandFullScaleDBSPL \(formatNumber(b)) dB SPL is out of range (allowed: 0 … 200 dB SPL)",
                              parameter: .calibration)
        }
        guard Self.table(referenceDBFS) != nil || Self.table(fullScaleDBSPL) != nil || broadbandFullScaleDBSPL != nil else {
            throw ShadesError(.parameter, "the calibration holds no level (allowed: referenceDBFS, fullScaleDBSPL or broadbandFullScaleDBSPL)",
                              parameter: .calibration)
        }
        // The triangle H = R − S where all three are held.
        for (key, h) in referenceDBFS ?? [:] {
            guard let f = Double(key), let r = Self.table(retsplDB), let s = Self.table(fullScaleDBSPL), Self.covers(r, f), Self.covers(s, f) else { continue }
            let derived = GainCurve.interpolate(r, atHz: f) - GainCurve.interpolate(s, atHz: f)
            if abs(derived - h) > Self.consistencyToleranceDB {
                throw ShadesError(.parameter, "calibration referenceDBFS at \(key) Hz, \(formatNumber(h)) dBFS, disagrees with retsplDB − fullScaleDBSPL, "
                                  + "\(formatNumber(derived, roundedTo: 2)) dBFS (allowed: within \(formatNumber(Self.consistencyToleranceDB)) dB)",
                                  parameter: .calibration)
            }
        }
    }
}

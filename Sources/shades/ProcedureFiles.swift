#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesStudy

// The JSON files the procedures write and read: a pitch match, an audiogram, a headphone calibration, a
// loudness match or minimum masking level; and the ears they are for.

/// `value` as the command line prints and writes JSON: pretty, sorted keys, non-finite numbers as "inf",
/// "-inf" and "nan" (procedure results, reports, readings).
func prettyJSON<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try encoder.encode(value)
}

/// The JSON file at `path` (up to 16 MB) as `type`; an unreadable file is an input error, one that does not
/// decode a parameter error of `option` saying what it should have been (`what`, `allowed`).
func readProcedureFile<T: Decodable>(_ type: T.Type, _ path: String, option: ParameterID, what: String, allowed: String) throws -> T {
    let bytes = try FileSystem.readFile(path, upTo: 16 << 20)
    do { return try JSONDecoder().decode(type, from: Data(bytes)) } catch {
        throw ShadesError(parameter: option, value: path, problem: "is not \(what)", allowed: allowed)
    }
}

/// The tinnitus frequency in a `shades match` result file; a flagged result is warned about in one line.
func matchedFrequency(_ path: String) throws -> Double {
    let result = try readProcedureFile(PitchMatch.Result.self, path, option: .matchFile, what: "a `shades match` result",
                                       allowed: "the JSON `shades match -o FILE` writes")
    if !result.warnings.isEmpty { printWarning("\(path): " + result.warnings.joined(separator: "; ")) }
    return result.frequencyHz
}

/// An audiogram file (`shades audiometry -o`).
func readAudiogram(_ path: String) throws -> Audiogram {
    try readProcedureFile(Audiogram.self, path, option: .audiogram, what: "a `shades audiometry` result",
                          allowed: "the JSON `shades audiometry -o FILE` writes")
}

/// An audiometer calibration: the dB HL part of a headphone calibration file (``HeadphoneCalibration``, the
/// format Presets/studies/README.md describes; an old file of `referenceDBFS` alone reads as before).
func readCalibration(_ path: String) throws -> AudiometerCalibration {
    try HeadphoneCalibration.read(path).audiometerCalibration()
}

/// The frequency, level and band of a `shades mml`, `shades mril` or `shades loudness-match` result; one without a level (no
/// masking level was found) is refused.
func readTinnitusReference(_ path: String) throws -> TinnitusReference {
    let reference = try readProcedureFile(TinnitusReference.self, path, option: .referenceFile,
                                          what: "a `shades mml`, `shades mril` or `shades loudness-match` result",
                                          allowed: "the JSON `shades mml -o FILE`, `shades mril -o FILE` or `shades loudness-match -o FILE` writes")
    guard reference.levelDBFS != nil else {
        throw ShadesError(parameter: .referenceFile, value: path, problem: "has no level (the \(reference.procedure) found none)",
                          allowed: "a result with levelDBFS")
    }
    return reference
}

/// `--ear`: "left", "right" or (`allowingBoth`) "both", right first.
func parseEars(_ text: String, allowingBoth: Bool = true) throws -> [Ears] {
    switch text {
    case "left": return [.left]
    case "right": return [.right]
    case "both" where allowingBoth: return [.right, .left]
    default: throw ShadesError(parameter: .ear, value: "'\(text)'", allowed: allowingBoth ? "left, right or both" : "left or right")
    }
}

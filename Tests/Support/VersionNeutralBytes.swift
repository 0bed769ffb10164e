import Foundation
import ShadesIO

/// A written file's bytes as the recorded hashes see them: the version that wrote it (`shades 0.2.0` in
/// a comment tag, `"0.2.0"` in a manifest) with its digits replaced by `x`, which keeps every length. A new
/// version number alone then changes no recorded hash, while a changed sample, parameter or field still
/// does (CHANGELOG.md, "Versioning").
public enum VersionNeutralBytes {
    /// The contents of the file at `path`, the version's digits masked.
    public static func of(file path: String) throws -> Data {
        masked(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `data` with each `shades VERSION` and `"VERSION"` masked.
    public static func masked(_ data: Data) -> Data {
        let version = ShadesVersion.string
        let mask = String(version.map { $0.isNumber ? "x" : $0 })
        var data = data
        for (found, replacement) in [("shades \(version)", "shades \(mask)"), ("\"\(version)\"", "\"\(mask)\"")] {
            let (target, with) = (Data(found.utf8), Data(replacement.utf8))
            var start = data.startIndex
            while let range = data.range(of: target, in: start..<data.endIndex) {
                data.replaceSubrange(range, with: with)
                start = range.upperBound
            }
        }
        return data
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FuzzSupport
import ShadesDSP
import ShadesCatalogue

/// A catalogue file (`Presets/*.json`) as the builder reads it: parse, validate, resolve into assets.
/// Any bytes either give a catalogue or problems, each naming the file and, when known, a position from 1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPresetParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let file = "fuzz.json"
    let document: CatalogueDocument
    do throws(ShadesError) {
        document = try PresetParser.parse(data: Data(input.bytes), file: file)
    } catch {
        check(error, file: file)
        return 0
    }
    do throws(PresetErrors) {
        try PresetParser.validate([(file, document)])
    } catch {
        require(!error.errors.isEmpty, "validation failed without a problem")
        for problem in error.errors { check(problem, file: file) }
        return 0
    }
    do throws(ShadesError) {
        let (assets, categories) = try PresetAssets.resolve([(file, document)])
        let ids = Set(assets.map(\.id))
        for category in categories {
            require(category.soundIDs.allSatisfy(ids.contains), "category \(category.id) names an asset that is not there")
        }
    } catch {
        // A validated catalogue must resolve.
        require(false, "validated catalogue did not resolve: \(error)")
    }
    return 0
}

private func check(_ error: ShadesError, file: String) {
    require(error.path == file, "problem names file '\(error.path ?? "none")'")
    require(!error.message.isEmpty, "empty message")
    require((error.line ?? 1) >= 1 && (error.column ?? 1) >= 1, "position \(String(describing: error.line)):\(String(describing: error.column))")
}

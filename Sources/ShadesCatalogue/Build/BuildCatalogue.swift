import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesPlatform

/// Builds a catalogue folder: one loudness-normalised, verified file per asset, `manifest.json` and
/// `index.html`, replacing the previous catalogue only when everything succeeded.
package enum CatalogueBuilder {
    /// Progress of a build: reported once per finished asset, one call at a time.
    package struct Progress: Sendable, Equatable {
        /// Assets finished so far (this one included).
        package let done: Int
        package let total: Int
        package let assetID: String
        /// Whether the file was taken from the previous build instead of rendered.
        package let reused: Bool
    }

    /// Worker count that was fastest on this 2-core VM for 60 s stereo assets (see the report in the tests).
    package static let defaultConcurrency = 2

    /// Builds `assets` into `folder`.
    ///
    /// Each asset is rendered in memory, measured (integrated loudness by libebur128, true peak by `TruePeakMeter`),
    /// moved by one gain to its ``CatalogueAsset/loudnessLUFS``, refused when its true peak would exceed
    /// −1 dBTP, written atomically, read back and verified (loudness ±0.1 LU, true peak, loop seam) and
    /// hashed (SHA-256). An asset whose recipe, loudness, format and library version match an entry of
    /// the previous `folder/manifest.json`, and whose file still has its hash, is linked from the
    /// previous build instead of rendered.
    ///
    /// The new catalogue is built in a hidden sibling folder (`.NAME.build-PID-N`), every file and folder
    /// synced to disk, and swapped into place in one step at the end: a failed build leaves `folder` as
    /// it was and nothing else behind; a killed one (SIGKILL, power cut) leaves `folder` as it was, and
    /// its building folder is removed by the next build into `folder`. A second build into `folder`
    /// while one runs is refused (a ``ShadesError/Kind/runtime`` error), so two builds cannot mix.
    ///
    /// - Parameters:
    ///   - parameters: build parameters recorded in the manifest (e.g. preset file, tinnitus frequency).
    ///   - folder: the catalogue folder; it must not exist, be empty, or hold a previous catalogue.
    ///   - concurrency: assets built at the same time (1 … 64).
    ///   - progress: called after each asset, serialised, from worker threads.
    @discardableResult
    package static func build(assets: [CatalogueAsset], categories: [Manifest.Category], parameters: [String: String] = [:],
                             into folder: String, concurrency: Int = defaultConcurrency,
                             progress: @Sendable (Progress) -> Void = { _ in }) throws(ShadesError) -> Manifest {
        try validate(assets: assets, categories: categories)
        guard (1...64).contains(concurrency) else {
            throw .usage("concurrency \(concurrency) is out of range (allowed: 1 … 64)")
        }
        let target = trimmedFolder(folder)
        let building = try startBuilding(target)
        do throws(ShadesError) {
            let previous = try previousCatalogue(at: target)
            try makeFolder(building + "/" + spectraFolder)
            let built = try buildAll(assets, into: building, previous: previous, previousFolder: target,
                                     concurrency: concurrency, progress: progress)
            var manifest = Manifest(
                parameters: parameters,
                categories: categories,
                sounds: built.map(\.sound))
            manifest.tinnitusFrequencyHz = assets.lazy.compactMap(\.frequencyHz).first
            try write(manifest.encoded(), to: building + "/" + Manifest.fileName)
            let spectra = Dictionary(built.map { ($0.sound.id, $0.spectrumSVG) }, uniquingKeysWith: { a, _ in a })
            try write(Data(IndexPage.html(manifest: manifest, spectra: spectra).utf8), to: building + "/" + IndexPage.fileName)
            try syncTree(building)
            try swap(building, into: target)
            return manifest
        } catch {
            removeTree(building)
            throw error.naming(building, as: target)
        }
    }

    /// Folder inside the catalogue holding each sound's spectrum as an SVG fragment (reused with the file).
    static let spectraFolder = "spectra"

    // MARK: Input

    static func validate(assets: [CatalogueAsset], categories: [Manifest.Category]) throws(ShadesError) {
        guard !assets.isEmpty else { throw .usage("the catalogue has no sounds (allowed: at least one)") }
        var ids = Set<String>()
        for asset in assets {
            try asset.validate()
            guard ids.insert(asset.id).inserted else { throw .usage("sound id \(asset.id) is used twice (allowed: unique ids)") }
        }
        var listed = [String: Set<String>]()  // category id → the sound ids it lists
        for category in categories {
            guard isSafeIdentifier(category.id) else {
                throw .usage("category id \"\(category.id)\" is not allowed (allowed: 1 … 100 letters, digits, - and _)")
            }
            guard listed[category.id] == nil else {
                throw .usage("category id \(category.id) is used twice (allowed: unique ids)")
            }
            for id in category.soundIDs {
                guard ids.contains(id) else { throw .usage("category \(category.id) lists sound \(id), which is not defined") }
            }
            listed[category.id] = Set(category.soundIDs)
        }
        for asset in assets {
            guard let listedInCategory = listed[asset.category] else {
                throw .usage("sound \(asset.id) names category \(asset.category), which is not defined")
            }
            guard listedInCategory.contains(asset.id) else {
                throw .usage("sound \(asset.id) is not listed in its category \(asset.category)")
            }
        }
    }

    // MARK: Building the sounds

    private static func buildAll(_ assets: [CatalogueAsset], into folder: String, previous: Manifest?, previousFolder: String,
                                 concurrency: Int, progress: @Sendable (Progress) -> Void) throws(ShadesError) -> [BuiltSound] {
        var reusable = [String: Manifest.Sound]()
        for sound in previous?.sounds ?? [] where reusable[sound.cacheKey] == nil { reusable[sound.cacheKey] = sound }
        let keys = assets.map(\.cacheKey)
        let results = Locked<[BuiltSound?]>(Array(repeating: nil, count: assets.count))
        let failure = Locked<ShadesError?>(nil)
        // Sounds that cannot reach their loudness under the true-peak ceiling: every one is listed, so the
        // build goes on past them (and writes nothing in the end).
        let tooLoud = Locked<[(id: String, highestLUFS: Double, error: ShadesError)]>([])
        let next = Atomic<Int>(0)
        let done = Locked<Int>(0)
        let workers = min(concurrency, assets.count)
        let oldFolder = previousFolder, reuse = reusable
        // Music first: a song takes seconds, a generated sound a fraction of one. Started last, the last
        // song ran alone while the other workers had nothing left; now the short sounds fill that time.
        let order = assets.indices.filter { assets[$0].request.sound.file != nil } + assets.indices.filter { assets[$0].request.sound.file == nil }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while failure.withLock({ $0 == nil }) {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < order.count else { return }
                let i = order[k]
                let asset = assets[i]
                do throws(ShadesError) {
                    var built: BuiltSound?
                    if let old = reuse[keys[i]] {
                        built = reused(asset, from: old, oldFolder: oldFolder, into: folder)
                    }
                    if built == nil { built = try AssetRenderer.build(asset, cacheKey: keys[i], into: folder) }
                    try write(Data(built!.spectrumSVG.utf8), to: "\(folder)/\(spectraFolder)/\(asset.id).svg")
                    results.withLock { $0[i] = built }
                    done.withLock { count in
                        count += 1
                        progress(Progress(done: count, total: assets.count, assetID: asset.id, reused: built!.reused))
                    }
                } catch {
                    if error.parameter == .loudness, case .number(let highest, _) = error.value {
                        tooLoud.withLock { $0.append((asset.id, highest, error)) }
                    } else {
                        failure.withLock { if $0 == nil { $0 = error } }
                    }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let refused = tooLoud.withLock { list in list.sorted { $0.id < $1.id } }
        if refused.count == 1 { throw refused[0].error }
        if let lowest = refused.map(\.highestLUFS).min() {
            throw .runtime("\(refused.count) sounds cannot reach their loudness with a true peak at or below \(formatNumber(CatalogueLimits.maximumTruePeakDBTP)) dBTP: "
                           + refused.map { "\($0.id) (at most \(formatFloor($0.highestLUFS)) LUFS)" }.joined(separator: ", ")
                           + "; the highest loudness every sound fits is \(formatFloor(lowest)) LUFS")
        }
        return results.withLock { $0.map { $0! } }
    }

    /// The previous build's file for the same cache key, linked (or copied) into `folder`, when it still
    /// has its recorded hash; nil when it must be rendered again.
    private static func reused(_ asset: CatalogueAsset, from old: Manifest.Sound, oldFolder: String, into folder: String) -> BuiltSound? {
        let oldPath = oldFolder + "/" + old.file
        guard isSafeRelativeFile(old.file), isSafeIdentifier(old.id),
              SHA256.hex(ofFile: oldPath) == old.sha256 else { return nil }
        let newPath = folder + "/" + asset.fileName
        do throws(ShadesError) { try FileSystem.link(oldPath, to: newPath) } catch {
            do { try FileManager.default.copyItem(atPath: oldPath, toPath: newPath) } catch { return nil }
        }
        var svg = (try? String(contentsOfFile: "\(oldFolder)/\(spectraFolder)/\(old.id).svg", encoding: .utf8)) ?? ""
        if svg.isEmpty {
            svg = (try? FileMeasurement.measure(path: newPath, seams: false, spectrum: true))?.spectrumSVG() ?? ""
        }
        var sound = old
        sound.id = asset.id
        sound.category = asset.category
        sound.titles = asset.titles
        sound.file = asset.fileName
        sound.frequencyHz = asset.frequencyHz
        return BuiltSound(sound: sound, spectrumSVG: svg, reused: true)
    }
}

/// A file name inside the catalogue folder itself (no folders, no `..`): what a manifest may name.
func isSafeRelativeFile(_ name: String) -> Bool {
    !name.isEmpty && !name.contains("/") && !name.hasPrefix(".")
}

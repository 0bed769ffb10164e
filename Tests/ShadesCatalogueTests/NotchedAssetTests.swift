import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesCatalogue
import ShadesTestSupport

/// The catalogue keeps a notch as deep as the notch filter makes it: notched noise and notched music are
/// written in 24 bits (16-bit TPDF dither, about −140 dB/Hz, filled the notch to 57–63 dB).
@Suite struct NotchedAssetTests {
    /// Output against input: the notched assets of a 6 kHz personal category with music (an MP3 made by
    /// `lame`), 8 s each, at least 100 dB deep in the written file, and stated as s24 in the manifest.
    @Test func notchedAssetsAreAtLeast100dBDeepInTheFile() throws {
        var defaults = CatalogueDefaults()
        defaults.lengthSeconds = 8
        let music = try SourceGraphStreamTests.musicFolder()
        defer { try? FileManager.default.removeItem(atPath: music) }
        let personal = try PresetAssets.personal(frequencyHz: 6_000, defaults: defaults, musicFolder: music)
        let notched = personal.assets.filter { $0.request.sound.hasNotch }
        #expect(notched.map(\.id) == ["personal-white-notched", "personal-pink-notched", "personal-music-song"])
        let folder = temporaryFolder("notched-assets") + "/catalogue"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = try CatalogueBuilder.build(assets: notched, categories: [personal.category.keeping(notched)], into: folder)
        let band = NotchSpec(centreHz: 6_000, widthOctaves: 1).band
        for asset in notched {
            let entry = try #require(manifest.sounds.first { $0.id == asset.id })
            #expect(entry.sampleFormat == .s24, "\(asset.id)")
            let written = try DecodedAudio(contentsOf: folder + "/" + entry.file).buffer
            // The input: the same sound without its notch (the file decoded at the catalogue's rate).
            var input = asset.resolvedRequest
            input.sound.notches = nil
            input.level = input.sound.file != nil ? .truePeakCeiling(dBTP: 0) : .rms(dBFS: -20)
            let reference = try Renderer.render(input).buffer
            for c in 0..<written.channelCount {
                var check = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
                let x = reference.samples(channel: c), y = written.samples(channel: c)
                x.withUnsafeBufferPointer { xs in y.withUnsafeBufferPointer { ys in check.add(reference: xs, output: ys) } }
                let report = try check.result()
                #expect((report.depthDB ?? .nan) <= -100, "\(asset.id) channel \(c): depth \((report.depthDB ?? .nan)) dB")
                print("notched asset \(asset.id) channel \(c): depth \((report.depthDB ?? .nan)) dB, worst in band \((report.worstInBandDB ?? .nan)) dB")
            }
        }
    }
}

extension Manifest.Category {
    /// The category with only `assets` in it.
    func keeping(_ assets: [CatalogueAsset]) -> Manifest.Category {
        Manifest.Category(id: id, titles: titles, soundIDs: soundIDs.filter { id in assets.contains { $0.id == id } })
    }
}

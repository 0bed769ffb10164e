import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Frequency modulation through the sound description: loops without a seam, the level the unmodulated
/// sound's, other sounds untouched.
@Suite struct FrequencyModulationRenderTests {
    let folder = temporaryFolder("fm-render")

    static func sound(_ generator: Generator, _ fm: FrequencyModulation, am: Modulation? = nil) -> Sound {
        var sound = Sound(generator)
        sound.frequencyModulation = fm
        sound.modulation = am
        return sound
    }

    /// Loops of FM tones and bands (sine and random, with AM too) repeat without a seam.
    @Test(arguments: [FrequencyModulation.Shape.sine, .random])
    func loopsAreSeamless(shape: FrequencyModulation.Shape) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fm = FrequencyModulation(rateHz: 9.7, depthCents: 150, shape: shape)
        for (name, sound) in [("tone", Self.sound(.tone(frequencyHz: 997.3), fm)),
                              ("band", Self.sound(.narrowBandNoise(centreHz: 3_000, widthOctaves: 0.5), fm)),
                              ("tone+am", Self.sound(.tone(frequencyHz: 997.3), fm, am: Modulation(rateHz: 10)))] {
            let request = RenderRequest(sound: sound, durationSeconds: 1.5, layout: .mono, loop: true)
            let path = "\(folder)/\(name).wav"
            try Renderer.renderFile(request, to: path, sampleFormat: .f32)
            let x = try DecodedAudio(contentsOf: path).buffer
            var seam = SeamAccumulator()
            x.withChannel(0) { seam.add(UnsafeBufferPointer($0)) }
            let report = try seam.result()
            #expect(report.isSeamless, "\(name) \(shape): \(report)")
            #expect(abs(x.withChannel(0) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) } + 20) < 0.01, "\(name)")
        }
    }

    /// A file of an FM tone and band is at the asked RMS, within 0.05 dB of the same sound unmodulated.
    @Test func theLevelIsTheUnmodulatedSounds() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for generator in [Generator.tone(frequencyHz: 2_000), .narrowBandNoise(centreHz: 2_000, widthOctaves: 1)] {
            var levels: [Double] = []
            for sound in [Sound(generator), Self.sound(generator, FrequencyModulation(rateHz: 10, depthCents: 300))] {
                let path = "\(folder)/level.wav"
                try Renderer.renderFile(RenderRequest(sound: sound, durationSeconds: 10, layout: .mono), to: path, sampleFormat: .f32)
                levels.append(try DecodedAudio(contentsOf: path).buffer.withChannel(0) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) })
            }
            #expect(abs(levels[0] - levels[1]) < 0.05, "\(generator): \(levels)")
        }
    }
}

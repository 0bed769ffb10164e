import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// `shades notch-filter` (issue 14): the impulse response it writes is the notch's kernel, and white noise
/// convolved with it is notched as deep and as flat as `shades notch` notches the same noise (≥ 100 dB in
/// the band); the PipeWire configuration loads that file in two convolvers and runs as `pipewire -c FILE`.
@Suite struct NotchFilterCommandTests {
    @Test func impulseResponseNotchesAsDeepAsTheNotchCommand() throws {
        let folder = temporaryFolder("notch-filter")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(["notch-filter", "--frequency", "6kHz", "--width", "1", "--rate", "48000",
                                    "-o", "notch-6k.wav", "--pipewire", "notch-6k.conf"], in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("latency 528 frames"))
        let design = try NotchDesign(notches: [NotchSpec(centreHz: 6_000)], sampleRate: 48_000)
        let ir = try DecodedAudio(contentsOf: "\(folder)/notch-6k.wav")
        #expect(ir.sampleRate == 48_000 && ir.buffer.channelCount == 1)
        let taps = ir.buffer.samples(channel: 0)
        #expect(taps == (0...(2 * design.halfLength)).map { Float(design.halfTaps[abs($0 - design.halfLength)]) })

        // White noise convolved with the written taps (direct form, in Double), against `shades notch`.
        let frames = 1 << 18
        let noise = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .mono, levelDBFS: -20, seed: 2).renderBuffer(frameCount: frames)
        let x = noise.samples(channel: 0)
        let m = design.halfLength
        var y = [Float](repeating: 0, count: frames)
        for t in 0..<frames {
            var sum = 0.0
            for k in max(0, t + m - frames + 1)...min(2 * m, t + m) { sum += Double(taps[k]) * Double(x[t + m - k]) }
            y[t] = Float(sum)
        }
        var convolved = try NotchCheckAccumulator(sampleRate: 48_000, band: OctaveBand(centreHz: 6_000, widthOctaves: 1))
        x.withUnsafeBufferPointer { a in y.withUnsafeBufferPointer { b in convolved.add(reference: a, output: b) } }
        let byKernel = try convolved.result()

        try FileSink.write(noise, sampleRate: 48_000, gains: [1], to: "\(folder)/noise.wav", sampleFormat: .f32, ditherKey: 1, comment: nil)
        let notch = try Shell.run(["notch", "noise.wav", "--frequency", "6kHz", "--format", "f32", "--ceiling", "0", "-o", "notched.wav"], in: folder)
        try #require(notch.status == 0, "\(notch.stderr)")
        let notched = try DecodedAudio(contentsOf: "\(folder)/notched.wav").buffer.samples(channel: 0)
        var byCommand = try NotchCheckAccumulator(sampleRate: 48_000, band: OctaveBand(centreHz: 6_000, widthOctaves: 1))
        x.withUnsafeBufferPointer { a in notched.withUnsafeBufferPointer { b in byCommand.add(reference: a, output: b) } }
        let byNotch = try byCommand.result()

        #expect(byKernel.lagSamples == 0 && byNotch.lagSamples == 0)
        #expect((byKernel.depthDB ?? .nan) <= -100 && (byKernel.worstInBandDB ?? .nan) <= -100, "kernel: \((byKernel.depthDB ?? .nan)) / \((byKernel.worstInBandDB ?? .nan)) dB")
        #expect(abs((byKernel.worstInBandDB ?? .nan) - (byNotch.worstInBandDB ?? .nan)) < 3, "\((byKernel.worstInBandDB ?? .nan)) vs \((byNotch.worstInBandDB ?? .nan)) dB")
        #expect(abs((byKernel.passbandRippleDB ?? .nan) - (byNotch.passbandRippleDB ?? .nan)) < 0.01)

        let conf = try String(contentsOfFile: "\(folder)/notch-6k.conf", encoding: .utf8)
        let path = URL(fileURLWithPath: "\(folder)/notch-6k.wav").resolvingSymlinksInPath().path
        #expect(conf.components(separatedBy: "label = convolver").count == 3)
        #expect(conf.contains("filename = \"\(path)\""), "\(conf)")
        #expect(conf.contains("media.class = Audio/Sink") && conf.contains("audio.channels = 2"))
        // Complete for `pipewire -c FILE`: the client modules the filter chain connects and runs with
        // (PipeWireNotchTests loads it in a real PipeWire).
        for module in ["protocol-native", "client-node", "adapter", "filter-chain"] {
            #expect(conf.contains("{ name = libpipewire-module-\(module)"), "\(module)")
        }
        #expect(conf.contains("audio.convert.* = audioconvert/libspa-audioconvert"))
        let confPath = URL(fileURLWithPath: "\(folder)/notch-6k.conf").resolvingSymlinksInPath().path
        #expect(conf.contains("# Use: `pipewire -c \(confPath)`"), "\(conf)")
    }

    @Test(arguments: [
        (["notch-filter", "-o", "x.wav"], "notch frequency is missing"),
        (["notch-filter", "--frequency", "6kHz", "-o", "x.flac"], "output x.flac"),
        (["notch-filter", "--frequency", "30kHz", "-o", "x.wav"], "--frequency 30000 Hz is out of range"),
        (["notch-filter", "--frequency", "6kHz", "--width", "4", "-o", "x.wav"], "width"),
    ])
    func badInputGetsOneLineAndNoFile(arguments: [String], mentions: String) throws {
        let folder = temporaryFolder("notch-filter-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(mentions), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}

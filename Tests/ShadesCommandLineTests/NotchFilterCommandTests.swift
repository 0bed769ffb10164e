import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesProcedures
import ShadesRender
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

    /// `--audiogram`: a stereo impulse response, one filter per ear, whose magnitude is the ear's half-gain
    /// compensation (half the threshold, capped at 30 dB, linear in log frequency) minus the preamp (the largest
    /// gain of either ear) within 0.5 dB from 125 Hz to 16 kHz outside the notch and its transitions, and at
    /// least 100 dB below it in the band; the PipeWire configuration gives each convolver its ear's channel; the
    /// parametric list says how close it comes, and its filters do what it says.
    @Test func aHearingProfileCompensatesEachEarAndNotches() throws {
        let folder = temporaryFolder("notch-filter-profile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audiometry = try Shell.run(["audiometry", "--simulate-audiogram", "250:10,500:15,1000:20,2000:35,4000:50,8000:60",
                                        "--seed", "3", "-o", "audiogram.json"], in: folder)
        try #require(audiometry.status == 0, "\(audiometry.stderr)")
        let result = try Shell.run(["notch-filter", "--frequency", "6kHz", "--audiogram", "audiogram.json", "-o", "profile.wav",
                                    "--pipewire", "profile.conf", "--parametric", "profile.txt"], in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let audiogram = try JSONDecoder().decode(Audiogram.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/audiogram.json")))
        let curves = try [Ears.left, .right].map { ear in
            let points = try audiogram.someThresholds(ear: ear)
            return GainCurve(frequenciesHz: points.map(\.frequencyHz), gainsDB: points.map { min(30, max(0, $0.thresholdDB / 2)) })
        }
        let preamp = -(curves.flatMap(\.gainsDB).max() ?? 0)
        #expect(result.stdout.contains("preamp \(formatNumber(preamp, roundedTo: 1)) dB"), "\(result.stdout)")
        #expect(curves[0] != curves[1], "the simulated ears differ")

        let ir = try DecodedAudio(contentsOf: "\(folder)/profile.wav")
        try #require(ir.sampleRate == 48_000 && ir.buffer.channelCount == 2)
        let (low, high) = (6_000 / 2.0.squareRoot(), 6_000 * 2.0.squareRoot())
        for ear in 0..<2 {
            let taps = ir.buffer.samples(channel: ear)
            let centre = taps.count / 2
            #expect(zip(taps, taps.reversed()).allSatisfy { $0 == $1 }, "ear \(ear): symmetric (linear phase)")
            func responseDB(_ f: Double) -> Double {
                var sum = Double(taps[centre])
                for k in 1...centre { sum += 2 * Double(taps[centre + k]) * cos(2 * Double.pi * f / 48_000 * Double(k)) }
                return 20 * log10(abs(sum))
            }
            var worst = 0.0, shallowest = -Double.infinity
            var f = 125.0
            while f <= 16_000 {
                let design = curves[ear].gainDB(atHz: f) + preamp
                if f < low / pow(2, 1.0 / 6) || f > high * pow(2, 1.0 / 6) {
                    worst = max(worst, abs(responseDB(f) - design))
                } else if f > low * pow(2, 1.0 / 24) && f < high / pow(2, 1.0 / 24) {
                    shallowest = max(shallowest, responseDB(f) - design)
                }
                f *= pow(2, 1.0 / 24)
            }
            #expect(worst <= 0.5, "ear \(ear): \(worst) dB from the compensation outside the notch")
            #expect(shallowest <= -100, "ear \(ear): the notch only \(shallowest) dB deep")
            print("hearing profile, ear \(ear): within \(worst) dB of the compensation, notch \(shallowest) dB")
        }

        let conf = try String(contentsOfFile: "\(folder)/profile.conf", encoding: .utf8)
        #expect(conf.contains("name = notchL config = { filename = ") && conf.contains("channel = 0 } }"))
        #expect(conf.contains("name = notchR config = { filename = ") && conf.contains("channel = 1 } }"), "\(conf)")
        #expect(conf.contains("node.name   = \"effect_input.shades_profile_6000Hz\""), "\(conf)")

        // The list: Equalizer APO's channel sections (the ears differ), each cascade within the error it states.
        let list = try String(contentsOfFile: "\(folder)/profile.txt", encoding: .utf8)
        let sections = list.components(separatedBy: "Channel: ")
        try #require(sections.count == 3 && sections[1].hasPrefix("L\n") && sections[2].hasPrefix("R\n"), "\(list)")
        let stated = try #require(list.firstMatch(of: /within ([0-9.]+) dB/).flatMap { Double($0.1) })
        for (ear, section) in sections.dropFirst().enumerated() {
            #expect(section.contains("Preamp: \(formatNumber(preamp, roundedTo: 1)) dB"))
            let peaks = section.matches(of: /Filter \d+: ON PK Fc ([0-9.]+) Hz Gain (-?[0-9.]+) dB Q ([0-9.]+)/).map {
                ParametricProfile.Peak(centreHz: Double($0.1)!, gainDB: Double($0.2)!, q: Double($0.3)!)
            }
            var worst = 0.0
            var f = 125.0
            while f <= 16_000 {
                if f < low / 2.0.squareRoot() || f > high * 2.0.squareRoot() {
                    worst = max(worst, abs(ParametricProfile.responseDB(peaks, atHz: f, rate: 48_000) - curves[ear].gainDB(atHz: f)))
                }
                f *= pow(2, 1.0 / 48)
            }
            // The printed gains are rounded to 0.1 dB.
            #expect(worst <= stated + 0.1 * Double(peaks.count), "ear \(ear): \(worst) dB, the list says \(stated)")
        }
    }

    /// Bad values: exit 2; an input file that cannot be read: exit 1 (as `render --audiogram`). One line, no file.
    @Test(arguments: [
        (["notch-filter", "-o", "x.wav"], "notch frequency is missing", 2),
        (["notch-filter", "--frequency", "6kHz", "-o", "x.flac"], "output x.flac", 2),
        (["notch-filter", "--frequency", "30kHz", "-o", "x.wav"], "--frequency 30000 Hz is out of range", 2),
        (["notch-filter", "--frequency", "6kHz", "--width", "4", "-o", "x.wav"], "width", 2),
        (["notch-filter", "--frequency", "6kHz", "--parametric", "x.txt", "-o", "x.wav"], "--parametric applies to --audiogram", 2),
        (["notch-filter", "--frequency", "6kHz", "--audiogram", "a.json", "--max-gain", "70", "-o", "x.wav"], "--max-gain 70 dB is out of range", 2),
        (["notch-filter", "--frequency", "6kHz", "--audiogram", "missing.json", "-o", "x.wav"], "missing.json does not exist", 1),
    ] as [([String], String, Int32)])
    func badInputGetsOneLineAndNoFile(arguments: [String], mentions: String, status: Int32) throws {
        let folder = temporaryFolder("notch-filter-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == status)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(mentions), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}

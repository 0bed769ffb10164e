import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesProcedures
import ShadesTestSupport

/// `shades notch-filter --pipewire` in a real PipeWire (issue 14): a headless PipeWire with a float32 48 kHz
/// stereo null sink and WirePlumber (scripts/headless-pipewire.sh, started by scripts/live-tests.sh after the
/// PulseAudio suites), the written configuration run as `pipewire -c FILE`, white noise played into its sink
/// with `pw-play`, and the null sink's monitor recorded with `pw-record`. The capture is checked against the
/// noise (depth and flatness, each channel) and against the noise convolved with the written taps. Skipped
/// when no PipeWire server is reachable.
@Suite(.serialized, .enabled(if: PipeWireServer.isReachable, Comment(rawValue: PipeWireServer.skipMessage)))
struct PipeWireNotchTests {
    @Test func notchFilterConfigurationNotchesNoiseInPipeWire() throws {
        // In the server's folder: scripts/headless-pipewire.sh stop ends any client left naming a file there.
        let folder = "\(PipeWireServer.folder)/notch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (noise, capture, kernels) = try PipeWireServer.noiseThroughFilter(["--frequency", "6kHz", "--width", "1", "--rate", "48000"],
                                                                               node: "shades_notch_6000Hz", in: folder)
        let taps = kernels[0]
        try #require(noise.count == 2 && capture.count == 2 && capture[0].count > noise[0].count)
        let band = try OctaveBand(centreHz: 6_000, widthOctaves: 1)
        // pw-play leaves out the last part-filled buffer (1280 of 288,000 frames reach the sink straight from
        // pw-play, the others bit-exact): the check takes the first 5 s of the 6 s.
        let frames = 5 * 48_000
        var lags: [Int] = []
        for channel in 0..<2 {
            // The lag from the whole capture (the noise padded with silence: the check pairs equal blocks),
            // then the notch from the 5 s aligned by it.
            let padded = noise[channel] + [Float](repeating: 0, count: capture[channel].count - noise[channel].count)
            var search = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
            padded.withUnsafeBufferPointer { x in capture[channel].withUnsafeBufferPointer { y in search.add(reference: x, output: y) } }
            let lag = try search.result().lagSamples
            try #require(lag >= 0 && lag + frames <= capture[channel].count, "lag \(lag) frames")
            var check = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
            noise[channel].withUnsafeBufferPointer { x in
                capture[channel].withUnsafeBufferPointer { y in
                    check.add(reference: UnsafeBufferPointer(rebasing: x[0..<frames]), output: UnsafeBufferPointer(rebasing: y[lag..<(lag + frames)]))
                }
            }
            let report = try check.result()
            #expect(report.lagSamples == 0)
            // The kernel is ≥ 110 dB deep and flat to ±0.00002 dB; PipeWire's float convolver keeps that.
            #expect((report.depthDB ?? .nan) <= -100 && (report.worstInBandDB ?? .nan) <= -100,
                    "channel \(channel): depth \((report.depthDB ?? .nan)) dB, worst in band \((report.worstInBandDB ?? .nan)) dB")
            #expect((report.passbandRippleDB ?? .nan) <= 0.01 && abs(report.passbandGainDB) <= 0.01,
                    "channel \(channel): passband gain \(report.passbandGainDB) dB, ripple \((report.passbandRippleDB ?? .nan)) dB")

            // The capture against the noise convolved with the written taps (direct form, in Double), over
            // one second: the same samples but for float rounding, in this channel (not the other).
            let offset = lag - taps.count / 2
            let residual = PipeWireServer.residualDB(capture[channel], noise[channel], taps: taps, offset: offset,
                                                     frames: 48_000..<96_000)
            let crossed = PipeWireServer.residualDB(capture[channel], noise[1 - channel], taps: taps, offset: offset,
                                                    frames: 48_000..<96_000)
            #expect(residual <= -100 && crossed > -10, "channel \(channel): residual \(residual) dB (\(crossed) dB against the other channel)")
            print("pipewire: channel \(channel + 1): depth \((report.depthDB ?? .nan)) dB, worst in band \((report.worstInBandDB ?? .nan)) dB, "
                  + "passband gain \(report.passbandGainDB) dB, ripple \((report.passbandRippleDB ?? .nan)) dB, lag \(lag) frames, "
                  + "residual against taps∗noise \(residual) dB")
            lags.append(lag)
        }
        #expect(lags[0] == lags[1])
    }

    /// `notch-filter --audiogram`: a hearing profile in the real PipeWire. Each ear's capture is the noise
    /// convolved with that ear's kernel (not the other's) to −90 dB, so the captured response is the kernel's;
    /// in third-octave bands from 125 Hz to 16 kHz it is within 0.5 dB of the ear's half-gain compensation
    /// minus the preamp outside the notch and its transitions, and the notch is ≥ 100 dB deep.
    @Test func hearingProfileShapesEachEarAndNotchesInPipeWire() throws {
        let folder = "\(PipeWireServer.folder)/profile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audiometry = try Shell.run(["audiometry", "--simulate-audiogram", "250:10,500:15,1000:20,2000:35,4000:50,8000:60",
                                        "--seed", "3", "-o", "audiogram.json"], in: folder)
        try #require(audiometry.status == 0, "\(audiometry.stderr)")
        let (noise, capture, kernels) = try PipeWireServer.noiseThroughFilter(["--frequency", "6kHz", "--audiogram", "audiogram.json"],
                                                                               node: "shades_profile_6000Hz", in: folder)
        try #require(kernels.count == 2 && capture.count == 2)
        let audiogram = try JSONDecoder().decode(Audiogram.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/audiogram.json")))
        let curves = try [Ears.left, .right].map { ear in
            let points = try audiogram.someThresholds(ear: ear)
            return GainCurve(frequenciesHz: points.map(\.frequencyHz), gainsDB: points.map { min(30, max(0, $0.thresholdDB / 2)) })
        }
        let preamp = -(curves.flatMap(\.gainsDB).max() ?? 0)
        let band = try OctaveBand(centreHz: 6_000, widthOctaves: 1)
        let frames = 5 * 48_000
        for ear in 0..<2 {
            let taps = kernels[ear], centre = taps.count / 2
            // The lag of the kernel's centre, from the notch's check (it aligns by cross-correlation).
            let padded = noise[ear] + [Float](repeating: 0, count: capture[ear].count - noise[ear].count)
            var search = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
            padded.withUnsafeBufferPointer { x in capture[ear].withUnsafeBufferPointer { y in search.add(reference: x, output: y) } }
            let lag = try search.result().lagSamples
            try #require(lag >= centre && lag + frames <= capture[ear].count, "lag \(lag) frames")
            let residual = PipeWireServer.residualDB(capture[ear], noise[ear], taps: taps, offset: lag - centre, frames: 48_000..<96_000)
            let crossed = PipeWireServer.residualDB(capture[ear], noise[ear], taps: kernels[1 - ear], offset: lag - centre, frames: 48_000..<96_000)
            // Measured −101.6 and −103.6 dB (PipeWire 0.3.65's float FFT convolver on a kernel spanning 30 dB).
            #expect(residual <= -90 && crossed > -40, "ear \(ear): residual \(residual) dB (\(crossed) dB with the other ear's kernel)")

            // Third-octave band gains of the capture over the noise (Welch, 65,536-point Hann segments, half overlap).
            let gains = PipeWireServer.bandGainsDB(output: Array(capture[ear][lag..<(lag + frames)]), input: Array(noise[ear][0..<frames]))
            var worst = 0.0, deepest = 0.0, shallowest = -Double.infinity
            for (f, gain) in gains where f >= 125 && f <= 16_000 {
                let design = curves[ear].gainDB(atHz: f) + preamp
                let (low, high) = (f / pow(2, 1.0 / 6), f * pow(2, 1.0 / 6))
                if high < band.lowerEdgeHz / pow(2, 1.0 / 6) || low > band.upperEdgeHz * pow(2, 1.0 / 6) {
                    worst = max(worst, abs(gain - design))
                } else if low > band.lowerEdgeHz && high < band.upperEdgeHz {
                    shallowest = max(shallowest, gain - design)
                    deepest = min(deepest, gain - design)
                }
            }
            #expect(worst <= 0.5, "ear \(ear): captured response \(worst) dB from the design outside the notch")
            #expect(shallowest <= -100, "ear \(ear): notch \(shallowest) dB in the captured bands")
            print("pipewire hearing profile, ear \(ear + 1): within \(worst) dB of the compensation outside the notch, "
                  + "notch bands \(shallowest) … \(deepest) dB, residual against kernel∗noise \(residual) dB")
        }
    }
}

/// The headless PipeWire the suite plays into, when one is reachable.
enum PipeWireServer {
    static let environment = ProcessInfo.processInfo.environment
    /// The null sink (`SHADES_PIPEWIRE_SINK`, exported by scripts/headless-pipewire.sh).
    static let sink = environment["SHADES_PIPEWIRE_SINK"] ?? ""
    /// The server's folder (`SHADES_PIPEWIRE_DIR`): the suite works in it.
    static let folder = environment["SHADES_PIPEWIRE_DIR"] ?? ""

    /// Whether the sink, the folder and `XDG_RUNTIME_DIR` are set and `pw-cli info 0` reaches the server.
    static let isReachable: Bool = {
        guard !sink.isEmpty, !folder.isEmpty, environment["XDG_RUNTIME_DIR"] != nil else { return false }
        return (try? run("/usr/bin/timeout", ["5", "pw-cli", "info", "0"]).status) == 0
    }()

    static let skipMessage = "no PipeWire server: SHADES_PIPEWIRE_SINK, SHADES_PIPEWIRE_DIR or XDG_RUNTIME_DIR unset, "
        + "or pw-cli info 0 failed; run `make test-live` (scripts/live-tests.sh starts a headless PipeWire and exports its environment)"

    /// Runs `tool arguments` to the end; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `shades notch-filter ARGUMENTS -o filter.wav --pipewire filter.conf` and 6 s of stereo white noise (−20 dBFS,
    /// float) in `folder`, the noise played through the configuration's sink `effect_input.NODE`: the noise, the
    /// capture and the impulse response, each by channel.
    static func noiseThroughFilter(_ arguments: [String], node: String, in folder: String) throws -> (noise: [[Float]], capture: [[Float]], kernels: [[Float]]) {
        let made = try Shell.run(["notch-filter"] + arguments + ["-o", "filter.wav", "--pipewire", "filter.conf"], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        let rendered = try Shell.run(["render", "white", "--rate", "48000", "--channels", "stereo", "--duration", "6s",
                                      "--level", "-20", "--seed", "5", "--format", "f32", "-o", "noise.wav"], in: folder)
        try #require(rendered.status == 0, "\(rendered.stderr)")
        try play("noise.wav", through: "filter.conf", node: node, capture: "capture.wav", in: folder)
        return (try FloatWAV.read("\(folder)/noise.wav"), try FloatWAV.read("\(folder)/capture.wav"), try FloatWAV.read("\(folder)/filter.wav"))
    }

    /// Runs `configuration` (in `folder`) as `pipewire -c`, plays `noise` into its sink `effect_input.NODE` with
    /// pw-play and records the null sink's monitor into `capture` (float 48 kHz stereo) until it has played.
    static func play(_ noise: String, through configuration: String, node: String, capture: String, in folder: String) throws {
        let filter = try Child("/usr/bin/pipewire", ["-c", "\(folder)/\(configuration)"], in: folder)
        defer { filter.signal(SIGTERM); filter.wait() }
        try waitForLinks(of: "effect_output.\(node)", filter: filter)
        let capturePath = "\(folder)/\(capture)"
        let recorder = try Child("/usr/bin/pw-record", ["--target", sink, "--format", "f32", "--rate", "48000",
                                                        "--channels", "2", capturePath], in: folder)
        defer { recorder.signal(SIGKILL); recorder.wait() }
        try waitForAudio(in: capturePath)
        let player = try Child("/usr/bin/pw-play", ["--target", "effect_input.\(node)", "\(folder)/\(noise)"], in: folder)
        #expect(player.wait() == 0, "pw-play exited \(player.wait())")
        usleep(500_000)
        recorder.signal(SIGINT)   // pw-record 0.3.65 exits 1 after SIGINT, with the file complete
        recorder.wait()
    }

    /// Third-octave band gains of `output` over `input` (dB, by band centre in Hz from 100 Hz): Welch power sums,
    /// 65,536-point Hann segments with half overlap.
    static func bandGainsDB(output: [Float], input: [Float]) -> [(Double, Double)] {
        let size = 65_536, hop = size / 2
        let fft = RealFFT(size: size)
        var powers = [[Double]](repeating: [Double](repeating: 0, count: size / 2 + 1), count: 2)
        var start = 0
        while start + size <= min(output.count, input.count) {
            for (which, signal) in [output, input].enumerated() {
                fft.withSignal { x in
                    for n in 0..<size { x[n] = signal[start + n] * Float(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(size))) }
                }
                fft.forward()
                fft.withSpectrum { bins in
                    for k in 0...(size / 2) {
                        let (re, im) = (Double(bins[2 * k]), Double(bins[2 * k + 1]))
                        powers[which][k] += re * re + im * im
                    }
                }
            }
            start += hop
        }
        var bands: [(Double, Double)] = []
        var centre = 100.0
        while centre * pow(2, 1.0 / 6) < 24_000 {
            let (low, high) = (Int(centre / pow(2, 1.0 / 6) * Double(size) / 48_000), Int(centre * pow(2, 1.0 / 6) * Double(size) / 48_000))
            let out = powers[0][low...high].reduce(0, +), into = powers[1][low...high].reduce(0, +)
            bands.append((centre, 10 * log10(max(out, 1e-300) / into)))
            centre *= pow(2, 1.0 / 3)
        }
        return bands
    }

    /// Waits (up to 10 s) until WirePlumber has linked both output ports of `node` to the sink.
    static func waitForLinks(of node: String, filter: Child) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let links = try run("/usr/bin/pw-link", ["-l"]).output
            if links.contains("|<- \(node):output_FL") && links.contains("|<- \(node):output_FR") { return }
            usleep(50_000)
        }
        throw LiveError("\(node) was not linked to \(sink) within 10 s (pipewire -c still running: \(kill(filter.pid, 0) == 0))")
    }

    /// Waits (up to 5 s) until the recorder's file has grown past its header.
    static func waitForAudio(in path: String) throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 8192 { return }
            usleep(10_000)
        }
        throw LiveError("pw-record wrote no audio within 5 s")
    }

    /// Energy of capture[offset + t] − (taps ∗ reference)[t] over `frames`, in dB relative to the convolution's.
    static func residualDB(_ capture: [Float], _ reference: [Float], taps: [Float], offset: Int, frames: Range<Int>) -> Double {
        var residual = 0.0, energy = 0.0
        for t in frames where offset + t >= 0 && offset + t < capture.count {
            var sum = 0.0
            for k in 0..<min(taps.count, t + 1) { sum += Double(taps[k]) * Double(reference[t - k]) }
            let difference = Double(capture[offset + t]) - sum
            residual += difference * difference
            energy += sum * sum
        }
        return 10 * log10(max(residual, 1e-300) / max(energy, 1e-300))
    }
}

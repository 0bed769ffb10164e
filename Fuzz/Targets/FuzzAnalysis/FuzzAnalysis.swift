#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzSupport
import ShadesAnalysis
import ShadesDSP

/// The analysis accumulators of `shades analyze` and the catalogue check, fed arbitrary samples in blocks
/// of arbitrary sizes: raw Float bit patterns (NaN, ∞, denormals), or a synthesised signal (full-scale
/// square waves, sines, constants) with hostile values spliced in. No input may crash or hang them; for
/// samples that are finite and at most 16 (+24 dBFS), every reading is finite and the level statistics
/// agree with a plain recount.
///
/// Input layout: rate, channels, block-size seed and largest block, Welch segment length, signal kind and
/// its parameters, then raw samples (kind 0) or splices (value index, position).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnalysis(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let rate = input.pick([8_000.0, 22_050, 44_100, 48_000, 96_000, 192_000])
    let channels = 1 + Int(input.byte() % 3)
    var blocks = BlockSizes(seed: UInt64(input.byte()), largest: 1 + input.uint16() % 8_192)
    let segmentLength = input.pick([256, 512, 1_024, 4_096])
    let signal = Signal.make(from: &input, channels: channels, rate: rate)
    signal.splice(from: &input)
    analyse(signal, rate: rate, blocks: &blocks, segmentLength: segmentLength)
    return 0
}

/// Planar samples, one array per channel.
private final class Signal {
    var channels: [[Float]]
    var frames: Int { channels[0].count }

    init(channels: [[Float]]) { self.channels = channels }

    static func make(from input: inout FuzzInput, channels count: Int, rate: Double) -> Signal {
        let kind = input.byte() % 4
        if kind == 0 {
            // Raw bit patterns, channel-interleaved.
            let raw = input.takeRest()
            let frames = raw.count / 4 / count
            var channels = [[Float]](repeating: [Float](repeating: 0, count: frames), count: count)
            for i in 0..<frames * count {
                let b = raw.baseAddress! + 4 * i
                let bits = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
                channels[i % count][i / count] = Float(bitPattern: bits)
            }
            return Signal(channels: channels)
        }
        let frames = input.uint16() + input.uint16() / 4    // up to 81,919 frames
        let amplitude = input.pick(hostileFloats + [0.5, 0.1, 1e-20])
        let period = 2 + input.uint16() % 4_000              // frames
        let channels = (0..<count).map { c -> [Float] in
            (0..<frames).map { n in
                switch kind {
                case 1:  // square wave, channels shifted by a quarter period
                    return (n + c * period / 4) % period < period / 2 ? amplitude : -amplitude
                case 2:  // sine
                    return amplitude * Float(sin(2 * Double.pi * Double(n) / Double(period) + Double(c)))
                default:  // constant
                    return amplitude
                }
            }
        }
        return Signal(channels: channels)
    }

    /// Writes hostile values at positions the input names: 3 bytes each (value, position).
    func splice(from input: inout FuzzInput) {
        guard frames > 0 else { return }
        while !input.isAtEnd {
            let value = input.pick(hostileFloats)
            let position = input.uint16() * 2 % (frames * channels.count)
            channels[position % channels.count][position / channels.count] = value
        }
    }

    /// True when every sample is finite and at most 16 in magnitude.
    var isOrdinary: Bool { channels.allSatisfy { $0.allSatisfy { $0.isFinite && abs($0) <= 16 } } }
}

/// Pseudo-random block sizes 0 … largest (an LCG, so an input always cuts the same way).
private struct BlockSizes {
    var state: UInt64
    let largest: Int
    init(seed: UInt64, largest: Int) { (state, self.largest) = (seed, largest) }
    mutating func next() -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(state >> 33) % (largest + 1)
    }
}

private func analyse(_ signal: Signal, rate: Double, blocks: inout BlockSizes, segmentLength: Int) {
    let count = signal.channels.count, frames = signal.frames
    var levels = LevelStatistics(channelCount: count)
    var ambient = try! AmbientLevel(sampleRate: rate, channelCount: count)
    var truePeaks = (0..<count).map { _ in TruePeakMeter(sampleRate: rate) }
    var seams = (0..<count).map { _ in SeamAccumulator() }
    var spectra = (0..<count).map { _ in try! SpectrumAccumulator(sampleRate: rate, segmentLength: segmentLength) }
    var notch = try! NotchCheckAccumulator(sampleRate: rate, band: try! OctaveBand(centreHz: rate / 8, widthOctaves: 1),
                                           segmentLength: segmentLength)
    let loudness = try! LoudnessMeter(channelCount: count, sampleRate: rate, truePeak: frames < 20_000)
    // A notch filter's input spectrum: its overlap-save filter's own Welch estimate (FramePowerAccumulator),
    // on channel 0, fed in the same blocks.
    let filter = NotchFilter(design: try! NotchDesign(notches: [NotchSpec(centreHz: rate / 8)], sampleRate: rate))
    filter.measureInputSpectrum()
    var filterOutput = [Float](repeating: 0, count: blocks.largest)

    signal.channels.withPlanes { planes in
        var done = 0
        while done < frames {
            let n = min(frames - done, blocks.next())
            let block = planes.map { UnsafeBufferPointer(rebasing: $0[done..<done + n]) }
            levels.add(block)
            ambient.add(block)
            for c in 0..<count {
                truePeaks[c].add(block[c])
                seams[c].add(block[c])
                spectra[c].add(block[c])
            }
            notch.add(reference: block[0], output: block[count - 1])
            do throws(ShadesError) { try loudness.add(block) } catch { require(false, "loudness refused a block: \(error)") }
            filterOutput.withUnsafeMutableBufferPointer { y in
                filter.process(block[0], into: UnsafeMutableBufferPointer(rebasing: y[0..<n]))
            }
            done += n
        }
    }

    let ordinary = signal.isOrdinary
    let report = levels.report()
    require(report.frameCount == frames, "level statistics counted \(report.frameCount) of \(frames) frames")
    let ambientReport = ambient.report(calibration: try! SPLCalibration(splDB: 94, dbfs: -20), listeningSeconds: 3_600)
    let loudnessReport = try? loudness.result()
    require(loudnessReport != nil, "loudness result failed")
    var spectrumResults: [PowerSpectrum] = []
    for c in 0..<count {
        _ = try? seams[c].result()
        if let spectrum = try? spectra[c].result() { spectrumResults.append(spectrum) }
        if ordinary {
            require(truePeaks[c].peak.isFinite, "true peak \(truePeaks[c].peak) of finite samples")
            let samplePeak = signal.channels[c].reduce(Float(0)) { max($0, abs($1)) }
            require(truePeaks[c].peak >= Double(samplePeak) * 0.9999, "true peak \(truePeaks[c].peak) below sample peak \(samplePeak)")
        }
    }
    if let average = PowerSpectrum.average(spectrumResults) {
        if let spectrumReport = try? SpectrumReport(spectrum: average, sampleRate: rate, expected: .pink), ordinary {
            require(spectrumReport.slopeDecibelsPerOctave.isFinite, "slope \(spectrumReport.slopeDecibelsPerOctave)")
        }
    }
    _ = try? notch.result()
    _ = filter.inputSpectrum(sampleRate: rate)
    let tone = signal.channels[0].withUnsafeBufferPointer { try? ToneAnalysis.estimate($0, sampleRate: rate) }
    let modulation = signal.channels[0].withUnsafeBufferPointer { try? ModulationAnalysis.estimate($0, sampleRate: rate) }

    guard ordinary else { return }
    // Finite samples give finite readings, and the SIMD level kernels agree with a plain recount.
    for (c, channel) in report.channels.enumerated() {
        let x = signal.channels[c]
        let sum = x.reduce(0.0) { $0 + Double($1) }
        let magnitudes = x.reduce(0.0) { $0 + Double(abs($1)) }
        let squares = x.reduce(0.0) { $0 + Double($1) * Double($1) }
        let peak = x.reduce(Float(0)) { max($0, abs($1)) }
        let clipped = x.filter { abs($0) >= LevelStatistics.clipThreshold }.count
        require(channel.clippedSamples == clipped, "channel \(c): \(channel.clippedSamples) clipped, recount \(clipped)")
        require(channel.samplePeakDBFS == (peak > 0 ? 20 * log10(Double(peak)) : nil),
                "channel \(c): peak \(String(describing: channel.samplePeakDBFS)) dBFS, recount \(peak)")
        require(channel.dcOffset.isFinite && abs(channel.dcOffset * Double(frames) - sum) <= 1e-4 * magnitudes,
                "channel \(c): DC \(channel.dcOffset), recount \(sum / Double(max(1, frames)))")
        if let rms = channel.rmsDBFS {
            require(rms.isFinite, "channel \(c): RMS \(rms) dBFS")
            // Below −200 dBFS the Float squares of the kernels underflow (1e-20² is denormal): not audio.
            let recount = 10 * log10(squares / Double(frames))
            require(!(recount > -200) || abs(rms - recount) < 0.01, "channel \(c): RMS \(rms) dBFS, recount \(recount)")
        }
    }
    if let correlation = report.correlation { require(correlation.isFinite && abs(correlation) <= 1, "correlation \(correlation)") }
    for level in ambientReport.laeqDBFSPerChannel + ambientReport.lafmaxDBFSPerChannel {
        if let level { require(level.isFinite, "ambient level \(level)") }
    }
    if let dose = ambientReport.doseNIOSHPercent { require(dose.isFinite, "dose \(dose)") }
    if let integrated = loudnessReport?.integratedLUFS { require(integrated.isFinite, "integrated loudness \(integrated)") }
    if let tone {
        require(tone.frequencyHz.isFinite && tone.frequencyHz >= 0 && tone.frequencyHz <= rate / 2, "tone at \(tone.frequencyHz) Hz")
        require(tone.amplitude.isFinite && tone.thdPlusNoiseDB.isFinite, "tone amplitude \(tone.amplitude), THD+N \(tone.thdPlusNoiseDB)")
    }
    if let modulation {
        require(modulation.rateHz.isFinite && modulation.depth.isFinite, "modulation \(modulation.rateHz) Hz, depth \(modulation.depth)")
    }
}

extension Array where Element == [Float] {
    /// Lends every channel's samples at once.
    func withPlanes<R>(_ body: ([UnsafeBufferPointer<Float>]) -> R) -> R {
        var planes: [UnsafeBufferPointer<Float>] = []
        func lend(_ c: Int) -> R {
            if c == count { return body(planes) }
            return self[c].withUnsafeBufferPointer { plane in
                planes.append(plane)
                return lend(c + 1)
            }
        }
        return lend(0)
    }
}

import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

/// What a written file of a patient's folder measures, read back block by block.
struct WrittenSound {
    let frames: Int
    let sampleRate: Int
    let channels: Int
    /// Integrated loudness, LUFS (ITU-R BS.1770, libebur128; nil for silence).
    let integratedLUFS: Double?
    /// RMS of the sustained part (between the fades), dBFS: the mean power of the channels that sound.
    let sustainedRMSDBFS: Double
    /// Each channel's RMS over the sustained part, dBFS.
    let channelRMSDBFS: [Double]
    /// The comment tag.
    let comment: String?

    /// Reads `path`; the RMS is taken between `sustainedSeconds` (start, end; end nil: the file's end).
    static func measure(path: String, sustainedSeconds: (start: Double, end: Double?)) throws(ShadesError) -> WrittenSound {
        let input = try AudioFileInput(path: path)
        let channels = input.channelCount, rate = input.sampleRate
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: Double(rate), truePeak: false)
        let first = Int((sustainedSeconds.start * Double(rate)).rounded())
        let last = sustainedSeconds.end.map { Int(($0 * Double(rate)).rounded()) } ?? Int.max
        var power = [Double](repeating: 0, count: channels)
        var sustainedFrames = 0
        let block = AudioBuffer(channelCount: channels, frameCapacity: 65_536, zeroed: false)
        var position = 0
        while true {
            let frames: Int = try block.withBlock { (b: AudioBlock) throws(ShadesError) in try input.read(into: b) }
            if frames == 0 { break }
            let planes = (0..<channels).map { c in block.withChannel(c) { UnsafeBufferPointer(rebasing: $0[0..<frames]) } }
            try meter.add(planes)
            let from = max(first, position) - position, to = min(last, position + frames) - position
            if from < to {
                for c in 0..<channels { power[c] += Self.sumOfSquares(planes[c][from..<to]) }
                sustainedFrames += to - from
            }
            position += frames
        }
        let sounding = power.filter { $0 > 0 }
        let mean = sounding.isEmpty || sustainedFrames == 0 ? 0 : sounding.reduce(0, +) / Double(sounding.count * sustainedFrames)
        return WrittenSound(frames: position, sampleRate: rate, channels: channels, integratedLUFS: try meter.result().integratedLUFS,
                            sustainedRMSDBFS: Decibels.fromPower(mean),
                            channelRMSDBFS: power.map { Decibels.fromPower($0 / Double(max(1, sustainedFrames))) }, comment: input.comment)
    }

    private static func sumOfSquares(_ samples: Slice<UnsafeBufferPointer<Float>>) -> Double {
        var sum = 0.0
        for x in samples { sum += Double(x) * Double(x) }
        return sum
    }
}

extension RenderRequest {
    /// Where the sustained sound is (seconds from the start; end nil: the file's end): between the fades.
    var sustainedSeconds: (start: Double, end: Double?) {
        guard let fades else { return (0, nil) }
        let end = fades.endSeconds ?? (durationSeconds.isFinite ? durationSeconds : nil)
        return (fades.inSeconds, end.map { $0 - fades.outSeconds })
    }
}

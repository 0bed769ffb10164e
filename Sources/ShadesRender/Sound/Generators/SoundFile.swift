import ShadesDSP
import ShadesIO

/// A sound file used as a source. `path` is what the file is found by (relative to the current folder,
/// or for a catalogue to its music folder); the rest is recorded when it is known, so a description names
/// exactly the file it was made from.
///
/// The file source, described once: its JSON form `{ "source": "file", "path": "music/song.mp3" }`, its
/// checks and its group (decoded, resampled to the request's rate and notched, `FileChain`).
public struct SoundFileReference: Sendable, Equatable, Encodable, SoundSourceKind {
    public var path: String
    /// Size of the file in bytes, when recorded.
    package var bytes: Int?
    /// Frames decoded (at the file's own rate), when recorded.
    package var frames: Int?
    /// The file's own sample rate in Hz, when recorded.
    public var sampleRate: Double?

    public init(path: String, bytes: Int? = nil, frames: Int? = nil, sampleRate: Double? = nil) {
        (self.path, self.bytes, self.frames, self.sampleRate) = (path, bytes, frames, sampleRate)
    }

    /// Its source name in the JSON form.
    static let sourceName = "file"
    /// Its keys in the JSON form.
    static let keys = ["path", "bytes", "frames", "sampleRate"]

    /// The file source in `o` (its "source" is "file").
    static func read(_ o: JSONObjectReader, reader: JSONTreeReader) throws(ShadesError) -> SoundFileReference {
        let path = try o.string("path", required: true)!
        guard !path.isEmpty else { throw reader.error(o["path"]?.location, "'path' is empty (allowed: a sound file's path)") }
        return SoundFileReference(path: path, bytes: try o.integer("bytes"), frames: try o.integer("frames"),
                                  sampleRate: try o.number("sampleRate", form: .hertz))
    }

    func encodeSource(into c: inout KeyedEncodingContainer<JSONKey>) throws {
        try c.encode(Self.sourceName, forKey: "source")
        try c.encode(path, forKey: "path")
        try c.encodeIfPresent(bytes, forKey: "bytes")
        try c.encodeIfPresent(frames, forKey: "frames")
        try c.encodeIfPresent(sampleRate, forKey: "sampleRate")
    }

    /// Music does not repeat seamlessly: a loop is refused. (The file itself is read when the graph is made.)
    func validate(in request: RenderRequest) throws(ShadesError) {
        if request.loop {
            throw ShadesError(parameter: .loop, value: "on", problem: "cannot be combined with a sound file",
                              allowed: "a file's own length (music does not repeat seamlessly)")
        }
    }

    /// The file as one group (`opened`, or opened now): decoded and resampled to the rate, with the
    /// request's notches in its chain (their delay removed); played to its end when the request asks.
    func group(_ request: RenderRequest, opened: GraphSoundFile?, failures: GraphFailures) throws(ShadesError) -> CompositeGroup {
        let rate = request.sampleRate
        let file = if let opened { opened } else { try GraphSoundFile(path: path) }
        guard request.resolvedLayout.outputChannelCount == file.channelCount || request.sound.channels == nil else {
            throw ShadesError(parameter: .channels, value: request.resolvedLayout.rawValue,
                              problem: "does not fit \(path) (\(file.channelCount) channels)", allowed: "the file's own channels")
        }
        let designs = try request.notches.map { (n: [NotchSpec]) throws(ShadesError) in
            try NotchModifier.designs(n, channelCount: file.channelCount, sampleRate: rate)
        }
        var group = CompositeGroup(channelCount: file.channelCount, frames: request.frameCount)
        group.soundFile = file
        group.notchDelayFrames = designs?.map(\.halfLength).max() ?? 0
        group.playsToEnd = request.durationSeconds == RenderRequest.untilEndOfFile
        if group.playsToEnd {
            group.frames = file.sampleRate == rate ? file.announcedFrames
                : StreamingResampler.outputFrameCount(inputFrames: file.announcedFrames, inputRate: file.sampleRate, outputRate: rate)
        }
        // The header read above refuses a file that cannot be read before any pass; the first pass takes
        // its decoder over.
        let quality = request.resamplerQuality, channelCount = file.channelCount
        group.make = {
            do throws(ShadesError) {
                let chain = try file.makeChain(sampleRate: rate, quality: quality, designs: designs)
                return (chain.source, chain.file)
            } catch {
                failures.record(error)
                return (SilenceSource(sampleRate: rate, channelCount: channelCount), nil)
            }
        }
        return group
    }
}

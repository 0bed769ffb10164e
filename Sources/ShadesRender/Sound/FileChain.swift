import Synchronization
import ShadesDSP
import ShadesIO

/// The one place a sound file becomes a source: decoded and resampled to the rate (``AudioFileSource``,
/// its own reader thread), then its notches (per ear for a stereo file) with the filter delay removed, so
/// the output is sample-aligned with the file and exactly as long. `render`, `notch`, the catalogue's
/// music, `play` and any mix with a file layer make it here, through a ``GraphSoundFile``.
package enum FileChain {
    /// Frames per block read and filtered.
    package static let blockFrames = 131_072

    /// The file (`opened`, or opened at `path`) and its notched stream. `designs` are one per channel (nil:
    /// no notch anywhere); `tap`, if given, is put between the file and the notches.
    package static func make(path: String, opened: AudioFileInput? = nil, sampleRate: Double, quality: Resampler.Quality = .best,
                             designs: [NotchDesign]?, measuringInputSpectrum: Bool = false,
                             tap: ((AudioFileSource) -> any AudioSource)? = nil) throws(ShadesError)
        -> (file: AudioFileSource, source: any AudioSource, notched: NotchedSource?) {
        let file = if let opened {
            try AudioFileSource(opened: opened, sampleRate: sampleRate, quality: quality, blockFrames: blockFrames)
        } else {
            try AudioFileSource(path: path, sampleRate: sampleRate, quality: quality, blockFrames: blockFrames)
        }
        let input = tap?(file) ?? file
        guard let designs else { return (file, input, nil) }
        let notched = try NotchedSource(source: input, designs: Array(designs.prefix(file.channelCount)), alignment: .silentPast,
                                        measuringInputSpectrum: measuringInputSpectrum)
        return (file, notched, notched)
    }
}

/// A graph's sound file, opened once: its header, read (and checked) when the graph is made, and its
/// decoder, which the graph's first chain takes over; a later chain (a pass that could not read back a
/// kept stream, a live stream after its measuring pass) opens the file again and must find the same header.
///
/// Its first chain can also measure the input, for notched music's report (``measuringInput``): the
/// decoded input's true peak per channel (after resampling, before the notches) and its spectrum from the
/// notch filters' own transforms.
package final class GraphSoundFile: @unchecked Sendable {
    package let path: String
    /// The file's own rate, Hz.
    package let sampleRate: Double
    package let channelCount: Int
    /// Frames the header announces (for MP3 and Ogg an estimate).
    package let announcedFrames: Int
    /// Whether the first chain measures the input (set before the first pass).
    package var measuringInput: Bool {
        get { measuring.load(ordering: .relaxed) }
        set { measuring.store(newValue, ordering: .relaxed) }
    }
    /// What the first chain measured of the input, when ``measuringInput``: its file source (decoded
    /// frames, length warning), the input's true-peak tap and the notches (their delay, the input spectrum).
    /// Read after the first pass.
    package private(set) var measuredInput: (file: AudioFileSource, tap: InputPeakTap, notched: NotchedSource?)?

    private let measuring = Atomic<Bool>(false)
    private let taken = Atomic<Bool>(false)
    /// The header's decoder, until the first chain takes it (only the one that wins ``taken`` touches it).
    private var header: AudioFileInput?

    /// Opens `path` and reads its header (``AudioFileSource/openInput(path:)``: not truncated, of known
    /// length and a rate in range).
    package init(path: String) throws(ShadesError) {
        let input = try AudioFileSource.openInput(path: path)
        self.path = path
        sampleRate = Double(input.sampleRate)
        channelCount = input.channelCount
        announcedFrames = input.frameCount
        header = input
    }

    /// A chain of the file (``FileChain/make(path:opened:sampleRate:quality:designs:measuringInputSpectrum:tap:)``):
    /// the first on the header's decoder, every later one on the file opened again.
    package func makeChain(sampleRate rate: Double, quality: Resampler.Quality, designs: [NotchDesign]?) throws(ShadesError)
        -> (file: AudioFileSource, source: any AudioSource) {
        let first = !taken.exchange(true, ordering: .acquiringAndReleasing)
        let input = first ? header : nil
        if first { header = nil }
        let measures = first && measuringInput
        var tap: InputPeakTap?
        let chain = try FileChain.make(path: path, opened: input, sampleRate: rate, quality: quality, designs: designs,
                                       measuringInputSpectrum: measures,
                                       tap: measures ? { file in let t = InputPeakTap(file: file); tap = t; return t } : nil)
        let file = chain.file
        guard first || (file.inputSampleRate == sampleRate && file.channelCount == channelCount && file.announcedInputFrames == announcedFrames) else {
            throw .input("cannot read \(path): the file changed while it was being processed")
        }
        if let tap { measuredInput = (file, tap, chain.notched) }
        return (file, chain.source)
    }
}

/// The input's true peak per channel (after resampling, before the notches), over the file's frames only.
package final class InputPeakTap: AudioSource {
    let file: AudioFileSource
    package private(set) var peaks: [TruePeakMeter]
    private var position = 0
    package var sampleRate: Double { file.sampleRate }
    package var channelCount: Int { file.channelCount }

    init(file: AudioFileSource) {
        self.file = file
        peaks = Array(repeating: TruePeakMeter(sampleRate: file.sampleRate), count: file.channelCount)
    }

    /// Prepares the file (a tap runs offline, but it answers like every source).
    package func prepareForRealTime(_ preparation: RealTimePreparation) { file.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        file.render(into: block)
        let valid = max(0, min(block.frameCount, (file.frameCount ?? Int.max) - position))
        for c in 0..<channelCount where valid > 0 { peaks[c].add(UnsafeBufferPointer(rebasing: block.channel(c)[0..<valid])) }
        position += block.frameCount
    }
}

/// The first failure of a file source opened inside a graph's (non-throwing) source factory: the file was
/// readable when the graph was made and is not any more. ``Renderer`` checks it after each pass.
package final class GraphFailures: Sendable {
    private let first = Mutex<ShadesError?>(nil)
    package init() {}
    package func record(_ error: ShadesError) { first.withLock { if $0 == nil { $0 = error } } }
    package var error: ShadesError? { first.withLock { $0 } }
}

import ShadesDSP
import Synchronization

/// A sound file as an ``AudioSource``: its frames decoded (any format libsndfile reads: WAV, FLAC,
/// OGG/Vorbis, Opus, MP3 …), resampled to ``sampleRate`` when another rate is asked, then silence.
///
/// A reader thread of its own decodes and resamples ahead (``ReadAhead``: three blocks of
/// ``blockFrames``), so any modifier can run on a file ("music notched at 6 kHz" is a ``NotchedSource``
/// over this source) and the render call only copies. It allocates nothing and takes no locks; when the
/// reader has not delivered yet (a slow disk) it waits for it, which suits offline rendering.
///
/// The length: a PCM or FLAC file's is exact; an MP3's or Ogg's header only estimates it, so the decoded
/// length, ``frameCount``, is known once rendering has reached the end. A read error after opening
/// (a truncated WAV) ends the source: ``failure`` says why, and what was rendered after it is silence.
package final class AudioFileSource: AudioSource {
    package let path: String
    /// Output rate, Hz: the file's, or the one asked for.
    package let sampleRate: Double
    package let channelCount: Int
    /// The file's own rate, Hz.
    package let inputSampleRate: Double
    /// Frames the file's header announces (for MP3 and Ogg an estimate; see ``AudioFileInput/frameCount``).
    package let announcedInputFrames: Int
    /// Frames per block decoded ahead.
    package let blockFrames: Int
    /// Output frames the source has (after resampling: round(n · rate ratio)); nil until rendering
    /// has reached the end.
    package var frameCount: Int? { frameCountWhenKnown }
    /// ``frameCount`` for any thread (a real-time player's control thread while the audio thread renders).
    package var frameCountWhenKnown: Int? { let n = knownFrameCount.load(ordering: .acquiring); return n < 0 ? nil : n }
    private let knownFrameCount = Atomic<Int>(-1)
    /// Input frames decoded; nil until the end.
    package var inputFramesDecoded: Int? { settleEnd()?.inputFrames }
    /// Set at the end when the frames read are not all the file holds or announces (a cut MP3): see
    /// ``AudioFileInput/lengthWarning``.
    package var lengthWarning: String? { settleEnd()?.lengthWarning }
    /// Why the source ended early (a read error, or fewer frames came out than went in), or nil. Read it
    /// from the thread that rendered, or after rendering has stopped.
    package var failure: ShadesError? { settleEnd()?.failure ?? readFailure }
    /// Whether a render call waits for the reader when its next block is not decoded yet (offline: the
    /// default). ``prepareForRealTime(_:)`` sets it false: the call then renders silence for the rest of
    /// the block and counts an underrun, and the music goes on where it was on a later call.
    package private(set) var waitsForReader = true
    /// Counts the render calls that found the reader behind (only when not ``waitsForReader``): the
    /// preparation's counter, set by ``prepareForRealTime(_:)``.
    private var underrunCounter: UnderrunCounter?
    /// The reader's error, taken on the render thread (no text is made there).
    private var readFailure: ShadesError?
    /// What the end tells, worked out (with its text) on first request, off the render thread.
    private var settled: (inputFrames: Int, lengthWarning: String?, failure: ShadesError?)?

    /// Most frames a file may announce: 24 hours at 192 kHz (libsndfile announces 2⁶³ − 1 when it cannot
    /// find the end of a stream, e.g. a cut-off Ogg file).
    package static let longestFrames = 24 * 3600 * 192_000

    private let input: AudioFileInput
    private let resampler: StreamingResampler?
    private let readAhead: ReadAhead
    /// Frames of the block the reader's ring holds for this source, and how far it has been rendered.
    private var available = 0, position = 0, delivered = 0
    private var ended = false

    /// Opens `path` and starts decoding ahead.
    ///
    /// - Parameters:
    ///   - sampleRate: the rate to render at (8,000 … 192,000 Hz, whole); nil keeps the file's.
    ///   - quality: libsamplerate's converter when the rate changes.
    /// - Throws: `.runtime` naming the file when it cannot be opened, is empty, truncated (a WAV or AIFF
    ///   whose data chunk is cut), of unknown length or of a rate out of range; `.usage` for a bad
    ///   `sampleRate`.
    package convenience init(path: String, sampleRate: Double? = nil, quality: Resampler.Quality = .best,
                             blockFrames: Int = 131_072) throws(ShadesError) {
        if let sampleRate { try Parameter.rate.check(sampleRate, within: .wholeSampleRates) }
        try self.init(opened: try Self.openInput(path: path), sampleRate: sampleRate, quality: quality, blockFrames: blockFrames)
    }

    /// The file `input`, opened by ``openInput(path:)`` and not read yet (its header read once is passed
    /// along): decoding ahead starts here. Parameters and errors as ``init(path:sampleRate:quality:blockFrames:)``.
    package init(opened input: AudioFileInput, sampleRate: Double? = nil, quality: Resampler.Quality = .best,
                blockFrames: Int = 131_072) throws(ShadesError) {
        if let sampleRate { try Parameter.rate.check(sampleRate, within: .wholeSampleRates) }
        let inputRate = Double(input.sampleRate)
        self.path = input.path
        self.input = input
        self.blockFrames = blockFrames
        inputSampleRate = inputRate
        self.sampleRate = sampleRate ?? inputRate
        channelCount = input.channelCount
        announcedInputFrames = input.frameCount
        let resampler = self.sampleRate == inputRate ? nil
            : try StreamingResampler(channelCount: channelCount, inputRate: inputRate, outputRate: self.sampleRate,
                                     quality: quality, outputBlockFrames: blockFrames)
        self.resampler = resampler
        // The reader thread owns the input and the resampler until it has finished. The input ends when a
        // read returns 0 (an estimated length is no end): an empty last block flushes the resampler.
        let channels = channelCount
        readAhead = ReadAhead(channelCount: channels, blockFrames: blockFrames) { fill throws(ShadesError) in
            guard let resampler else {
                var n = 0
                while try fill({ (slot: AudioBlock) throws(ShadesError) -> Int in n = try input.read(into: slot); return n }),
                      n > 0 {}
                return
            }
            let buffer = AudioBuffer(channelCount: channels, frameCapacity: blockFrames, zeroed: false)
            var going = true
            while going && !resampler.isFinished {
                let n = try buffer.withBlock { (b: AudioBlock) throws(ShadesError) in try input.read(into: b) }
                try buffer.withBlock(frames: 0..<n) { (b: AudioBlock) throws(ShadesError) in
                    try resampler.process(b, endOfInput: n == 0) { (o: AudioBlock) throws(ShadesError) in
                        guard going else { return }
                        going = try fill { (slot: AudioBlock) -> Int in
                            for c in 0..<channels { _ = slot.channel(c).update(fromContentsOf: o.channel(c)) }
                            return o.frameCount
                        }
                    }
                }
            }
        }
    }

    deinit { readAhead.stop() }

    /// Opens `path` for reading and checks its header: not truncated (a WAV or AIFF whose data chunk is
    /// cut), of known length, of a rate in 8,000 … 192,000 Hz.
    package static func openInput(path: String) throws(ShadesError) -> AudioFileInput {
        let input = try AudioFileInput(path: path)
        if let problem = input.truncation {
            throw .input("cannot read \(path): the file is truncated or corrupt (\(problem))")
        }
        guard input.frameCount <= longestFrames else {
            throw .input("cannot read \(path): the file is truncated or corrupt (its length is unknown)")
        }
        do throws(ShadesError) { try validateSampleRate(Double(input.sampleRate)) } catch {
            var unsupported = error.within("cannot process \(path)")
            unsupported.kind = .runtime
            throw unsupported
        }
        return input
    }

    /// Output frames for `inputFrames` decoded frames: as many, or round(n · rate ratio) when resampling.
    package func outputFrames(forInput inputFrames: Int) -> Int {
        resampler == nil ? inputFrames
            : StreamingResampler.outputFrameCount(inputFrames: inputFrames, inputRate: inputSampleRate, outputRate: sampleRate)
    }

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        var done = 0
        while done < block.frameCount {
            if position == available && !ended && !takeNextBlock() {
                underrunCounter?.add()
                for c in 0..<channelCount { block.channel(c)[done...].update(repeating: 0) }
                return
            }
            if ended {
                for c in 0..<channelCount { block.channel(c)[done...].update(repeating: 0) }
                return
            }
            let n = min(block.frameCount - done, available - position)
            readAhead.withHeldBlock { held in
                for c in 0..<channelCount {
                    (block.channel(c).baseAddress! + done).update(from: held.channel(c).baseAddress! + position, count: n)
                }
            }
            position += n
            done += n
            delivered += n
        }
    }

    /// Switches to real-time rendering once the whole graph is prepared (the notches above it have read
    /// their pre-rolls, waiting): waits until the reader has filled its ring ahead, then no render call
    /// waits for it again; one that finds it behind counts an underrun here and in the preparation's
    /// counter.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {
        underrunCounter = preparation.readerUnderruns
        preparation.whenGraphIsPrepared { [self] in
            if position == available && !ended { _ = takeNextBlock() }
            readAhead.waitUntilAhead()
            waitsForReader = false
        }
    }

    /// Holds the reader's next block, or marks the end; false when not waiting and the reader has no block
    /// ready.
    private func takeNextBlock() -> Bool {
        do throws(ShadesError) {
            if let next = try readAhead.holdNext(waiting: waitsForReader) {
                (available, position) = (next, 0)
                return true
            }
            if !readAhead.ended { return false }
        } catch {
            readFailure = error
        }
        // The reader has finished: the input is this thread's again. Only the count is published here;
        // the rest (``settleEnd()``) makes text, which an audio thread must not.
        ended = true
        knownFrameCount.store(delivered, ordering: .releasing)
        return true
    }

    /// The end's figures and failure, worked out once after the reader has finished; nil before.
    private func settleEnd() -> (inputFrames: Int, lengthWarning: String?, failure: ShadesError?)? {
        guard ended else { return nil }
        if let settled { return settled }
        let expected = outputFrames(forInput: input.framesRead)
        var failure = readFailure
        if failure == nil && delivered != expected {
            failure = .input("cannot read \(path): \(delivered) of \(expected) frames came out")
        }
        let end = (inputFrames: input.framesRead, lengthWarning: input.lengthWarning, failure: failure)
        settled = end
        return end
    }
}

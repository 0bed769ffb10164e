import CSampleRate
import Dispatch
import ShadesDSP

/// Sample-rate conversion of a stream of any length, block by block, in bounded memory.
///
/// Two engines. Between whole rates (every rate a file can have), every quality runs the frequency-domain
/// ``RationalResampler`` (FFTW) with its quality's low-pass (``Resampler/Quality``; the best: passband
/// flat to 0.95 × the lower Nyquist, images and aliases 140 dB down by design). A ratio whose terms have
/// a prime factor over 7 (44,101 → 48,000 Hz) takes two stages: the rational resampler to a power-of-two
/// multiple F of the input rate (at least twice the lower rate), removing everything above the lower
/// Nyquist, then a short polyphase ``FractionalResampler`` from F to the output rate. Rates that are not
/// whole numbers of Hz run libsamplerate (`src_new`, `src_process` with `end_of_input`, `src_delete`;
/// ``Resampler`` converts whole buffers with `src_simple`), whose best converter reaches about 97 dB.
///
/// Why: libsamplerate's best converter is as clean on tones (ResamplerQualityTests measure both:
/// passband and images within the goal) but converted 22.05 → 48 kHz at about 1.1 M frames/s per channel,
/// 65× slower than the rational resampler (70 M frames/s; medium 3.5 M, fastest 7.5 M; AMD EPYC with
/// AVX-512, measured with `StreamingResampler` over 60 s of a tone), which made a resampled notch 30× slower
/// than SoX's; and its fastest converter was slower than the rational best.
///
/// One converter per channel works on the planar samples directly (no interleaving). The rational
/// engine converts the channels one after another (a frame is too short to pay for a second thread);
/// libsamplerate's converters, about 65 times slower, run in parallel. The output is time-aligned with
/// the input (both engines compensate their own delay) and, once ``process(_:endOfInput:_:)`` is called
/// with `endOfInput`, exactly ``outputFrameCount(inputFrames:inputRate:outputRate:)`` frames long:
/// round(n · outputRate / inputRate).
/// Whatever the converter adds past that is dropped; a shortfall is filled with zeros.
///
/// Memory: one output block (``outputBlockFrames`` per channel) and the converters' state. `process`
/// allocates nothing.
package final class StreamingResampler {
    package let channelCount: Int
    /// Input rate in Hz.
    package let inputRate: Double
    /// Output rate in Hz.
    package let outputRate: Double
    /// outputRate / inputRate.
    package let ratio: Double
    package let quality: Resampler.Quality
    /// Most frames per channel handed to the `body` of one call.
    package let outputBlockFrames: Int
    /// Input frames taken so far.
    package private(set) var inputFrames = 0
    /// Output frames handed out so far.
    package private(set) var outputFrames = 0
    /// True once the stream was ended (`endOfInput`); ``reset()`` starts a new one.
    package private(set) var isFinished = false
    /// True when the frequency-domain ``RationalResampler`` converts (see the type).
    package var isRational: Bool { !rational.isEmpty }
    /// True when a ``FractionalResampler`` follows the rational one (see the type).
    package var isTwoStage: Bool { !fractional.isEmpty }

    /// The rational engine's converters (one per channel), or none.
    private let rational: [RationalResampler]
    /// Its second stage (one per channel), or none.
    private let fractional: [FractionalResampler]
    /// The rational engine's converted frames, one hop per channel.
    private let hop: AudioBuffer?
    /// The second stage's output for one hop, per channel (the frames lent when there are two stages).
    private let secondOutput: AudioBuffer?
    /// Frames the second stage made from the last hop, per channel.
    private let secondMade: UnsafeMutableBufferPointer<Int>
    /// Frames of `hop` not yet lent, from `hopPosition`.
    private var hopPosition = 0, hopAvailable = 0
    private let states: [OpaquePointer]
    private let output: AudioBuffer
    private let used: UnsafeMutableBufferPointer<Int>        // per channel, last src_process call
    private let generated: UnsafeMutableBufferPointer<Int>
    private let codes: UnsafeMutableBufferPointer<Int32>

    /// - Parameters:
    ///   - channelCount: 1 or more.
    ///   - inputRate, outputRate: Hz, 8,000 … 192,000 (the ratio is within libsamplerate's 1/256 … 256).
    ///   - quality: the low-pass of the rational resampler (whole rates), or libsamplerate's converter
    ///     (other rates); see the type.
    ///   - outputBlockFrames: output frames per channel lent to `body` at most (1,024 or more).
    package init(channelCount: Int, inputRate: Double, outputRate: Double, quality: Resampler.Quality = .best,
                outputBlockFrames: Int = 16_384) throws(ShadesError) {
        precondition(channelCount > 0, "a resampler needs at least one channel")
        precondition(outputBlockFrames >= 1_024, "output blocks of at least 1024 frames")
        try validateSampleRate(inputRate)
        try validateSampleRate(outputRate)
        self.channelCount = channelCount
        self.inputRate = inputRate
        self.outputRate = outputRate
        ratio = outputRate / inputRate
        self.quality = quality
        self.outputBlockFrames = outputBlockFrames
        if inputRate == inputRate.rounded(), outputRate == outputRate.rounded() {
            let (from, to) = (Int(inputRate), Int(outputRate))
            let stages = Self.stages(from: from, to: to, quality: quality)
            rational = (0..<channelCount).map { _ in RationalResampler(design: stages.first) }
            hop = AudioBuffer(channelCount: channelCount, frameCapacity: stages.first.hopOutput, zeroed: true)
            if let second = stages.second {
                let converters = (0..<channelCount).map { _ in FractionalResampler(design: second, largestBlock: stages.first.hopOutput) }
                fractional = converters
                secondOutput = AudioBuffer(channelCount: channelCount,
                                           frameCapacity: converters[0].largestOutput(forInput: stages.first.hopOutput))
            } else {
                fractional = []
                secondOutput = nil
            }
            secondMade = .allocate(capacity: channelCount)
            secondMade.initialize(repeating: 0)
            states = []
            output = AudioBuffer(channelCount: channelCount, frameCapacity: 1, zeroed: true)
            used = .allocate(capacity: 0)
            generated = .allocate(capacity: 0)
            codes = .allocate(capacity: 0)
            return
        }
        rational = []
        fractional = []
        hop = nil
        secondOutput = nil
        secondMade = .allocate(capacity: 0)
        var states: [OpaquePointer] = []
        for _ in 0..<channelCount {
            var code: Int32 = 0
            guard let state = src_new(quality.converter, 1, &code) else {
                for state in states { src_delete(state) }
                throw .runtime("cannot start the resampler: \(String(cString: src_strerror(code)))")
            }
            states.append(state)
        }
        self.states = states
        output = AudioBuffer(channelCount: channelCount, frameCapacity: outputBlockFrames, zeroed: true)
        used = .allocate(capacity: channelCount)
        generated = .allocate(capacity: channelCount)
        codes = .allocate(capacity: channelCount)
    }

    deinit {
        for state in states { src_delete(state) }
        used.deallocate()
        generated.deallocate()
        codes.deallocate()
        secondMade.deallocate()
    }

    /// The rational design from `from` to `to` Hz at `quality`, alone when the ratio allows, else to the
    /// intermediate rate with the second stage behind it.
    static func stages(from: Int, to: Int, quality: Resampler.Quality)
        -> (first: RationalResamplerDesign, second: FractionalResamplerDesign?) {
        if let single = RationalResamplerDesign(inputRate: from, outputRate: to, attenuationDB: quality.attenuationDB,
                                                passbandShare: quality.passbandShare) {
            return (single, nil)
        }
        let band = Double(min(from, to)) / 2
        let middle = FractionalResamplerDesign.intermediateRate(inputRate: from, outputRate: to)
        // A power-of-two ratio always has a design (its frames are short).
        let first = RationalResamplerDesign(inputRate: from, outputRate: middle, bandLimitHz: band,
                                            attenuationDB: quality.attenuationDB, passbandShare: quality.passbandShare)!
        return (first, FractionalResamplerDesign(inputRate: middle, outputRate: to, bandLimitHz: band,
                                                 attenuationDB: quality.attenuationDB))
    }

    /// Frames a stream of `inputFrames` frames becomes: round(inputFrames · outputRate / inputRate).
    package static func outputFrameCount(inputFrames: Int, inputRate: Double, outputRate: Double) -> Int {
        Int((Double(inputFrames) * outputRate / inputRate).rounded())
    }

    /// Converts every frame of `input` and lends the converted frames to `body` in blocks of at most
    /// ``outputBlockFrames`` (none while the converter is still filling its window). With `endOfInput`
    /// the stream is flushed and ends at exactly round(total input · ratio) frames.
    ///
    /// The blocks lent to `body` must not escape it. Errors thrown by `body` end the call.
    package func process(_ input: AudioBlock, endOfInput: Bool,
                        _ body: (AudioBlock) throws(ShadesError) -> Void) throws(ShadesError) {
        precondition(input.channelCount == channelCount, "block has the wrong channel count")
        precondition(!isFinished, "the stream has ended; reset() starts another")
        let total = input.frameCount
        inputFrames += total
        let target = endOfInput
            ? Self.outputFrameCount(inputFrames: inputFrames, inputRate: inputRate, outputRate: outputRate) : Int.max
        if isRational {
            try processRational(input, endOfInput: endOfInput, target: target, body)
            return
        }
        var consumed = 0
        while true {
            let remaining = total - consumed
            let space = outputBlockFrames
            convert(input, from: consumed, frames: remaining, space: space, endOfInput: endOfInput)
            for c in 0..<channelCount where codes[c] != 0 {
                throw .runtime("resampling failed: \(String(cString: src_strerror(codes[c])))")
            }
            // The converters' progress depends on counts only, never on the samples: all channels agree.
            for c in 1..<max(1, channelCount) where used[c] != used[0] || generated[c] != generated[0] {
                throw .runtime("resampling failed: the channels' converters went out of step")
            }
            consumed += used[0]
            var produced = min(generated[0], target - outputFrames)
            if endOfInput && consumed == total && generated[0] == 0 {
                // Flushed: pad a shortfall with zeros (block by block), then stop.
                while outputFrames < target {
                    produced = min(space, target - outputFrames)
                    output.withBlock(frames: 0..<produced) { $0.clear() }
                    try lend(frames: produced, body)
                }
                isFinished = true
                return
            }
            if produced > 0 { try lend(frames: produced, body) }
            if !endOfInput && consumed == total && generated[0] < space { return }
        }
    }

    /// The rational engine: frames are filled (every channel alike: the counts never depend on the
    /// samples), converted one channel after another, and their hops lent; after the end, silence until
    /// `target`.
    private func processRational(_ input: AudioBlock, endOfInput: Bool, target: Int,
                                 _ body: (AudioBlock) throws(ShadesError) -> Void) throws(ShadesError) {
        let lent = secondOutput ?? hop!
        var consumed = 0
        while true {
            // Lend what the last frame left (trimmed to the stream's length at the end).
            if hopPosition < hopAvailable {
                let n = min(hopAvailable - hopPosition, outputBlockFrames, target - outputFrames)
                if n > 0 {
                    outputFrames += n
                    try lent.withBlock(frames: hopPosition..<hopPosition + n) { (b: AudioBlock) throws(ShadesError) in try body(b) }
                    hopPosition += n
                    continue
                }
                hopPosition = hopAvailable
            }
            if endOfInput && consumed == input.frameCount && outputFrames >= target {
                isFinished = true
                return
            }
            // Fill the frame: the input, then (at the end) silence.
            if consumed < input.frameCount {
                var taken = 0
                for c in 0..<channelCount {
                    taken = rational[c].push(UnsafeBufferPointer(rebasing: input.channel(c)[consumed...]))
                }
                consumed += taken
            } else if endOfInput {
                for converter in rational { _ = converter.pushSilence(converter.design.inputFFTSize) }
            }
            guard rational[0].isFrameFull else {
                if endOfInput { continue }   // then silence fills the frame
                return                       // all input taken: wait for more
            }
            // On this thread: a frame is two FFTs of a few thousand points per channel, about as long as
            // waking another thread and joining it, so converting the channels in parallel made a resampled
            // notch slower (a 22.05 kHz MP3 notched at 48 kHz: 1.25 s parallel, 1.17 s here; CPU 1.59, 1.46 s).
            for c in 0..<channelCount { convertFrame(channel: c) }
            // The second stage's counts depend on counts only, never on the samples: all channels agree.
            (hopPosition, hopAvailable) = (0, secondOutput == nil ? hop!.frameCapacity : secondMade[0])
        }
    }

    /// Forgets the stream: the next `process` starts a new one.
    package func reset() {
        for converter in rational { converter.reset() }
        for converter in fractional { converter.reset() }
        (hopPosition, hopAvailable) = (0, 0)
        for state in states { src_reset(state) }
        inputFrames = 0
        outputFrames = 0
        isFinished = false
    }

    /// Converts channel `c`'s full frame into its hop, and through the second stage when there is one.
    private func convertFrame(channel c: Int) {
        hop!.withChannel(c) { converted in
            rational[c].convert(into: converted.baseAddress!)
            guard let secondOutput else { return }
            secondMade[c] = secondOutput.withChannel(c) { fractional[c].process(UnsafeBufferPointer(converted), into: $0.baseAddress!) }
        }
    }

    private func lend(frames: Int, _ body: (AudioBlock) throws(ShadesError) -> Void) throws(ShadesError) {
        outputFrames += frames
        try output.withBlock(frames: 0..<frames) { (block: AudioBlock) throws(ShadesError) in try body(block) }
    }

    /// One `src_process` call per channel (in parallel for several channels) into the output block.
    private func convert(_ input: AudioBlock, from offset: Int, frames: Int, space: Int, endOfInput: Bool) {
        let call = ChannelCall(resampler: self, input: input, offset: offset, frames: frames, space: space,
                               endOfInput: endOfInput)
        if channelCount == 1 {
            call.run(channel: 0)
        } else {
            DispatchQueue.concurrentPerform(iterations: channelCount) { call.run(channel: $0) }
        }
    }

    /// `src_process` on channel `c`: input frames `offset ..< offset + frames`, output at the block's start.
    fileprivate func convert(channel c: Int, _ input: AudioBlock, offset: Int, frames: Int, space: Int, endOfInput: Bool) {
        output.withChannel(c) { out in
            var data = SRC_DATA()
            data.data_in = UnsafePointer(input.channel(c).baseAddress.map { $0 + offset })
            data.input_frames = frames
            data.data_out = out.baseAddress
            data.output_frames = space
            data.end_of_input = endOfInput ? 1 : 0
            data.src_ratio = ratio
            codes[c] = src_process(states[c], &data)
            used[c] = data.input_frames_used
            generated[c] = data.output_frames_gen
        }
    }
}

/// The arguments of one conversion step, shared by the channels' parallel `src_process` calls; each call
/// touches only its own channel's converter, samples and result slots.
private struct ChannelCall: @unchecked Sendable {
    let resampler: StreamingResampler
    let input: AudioBlock
    let offset: Int, frames: Int, space: Int
    let endOfInput: Bool

    func run(channel c: Int) {
        resampler.convert(channel: c, input, offset: offset, frames: frames, space: space, endOfInput: endOfInput)
    }
}


import Dispatch
import FoundationEssentials
import Synchronization
import ShadesDSP
import ShadesIO
import ShadesPlatform

// MARK: - Jobs and reports

/// Which notches each channel of a file gets.
public enum NotchLayout: Sendable, Equatable, Codable {
    /// The same notches on every channel (unilateral tinnitus, or the same frequency in both ears).
    case everyChannel([NotchSpec])
    /// Bilateral tinnitus with a different frequency per ear: channel 0 (left) and channel 1 (right) of a
    /// stereo file each get their own list. An empty list leaves that ear unfiltered (only delayed, so the
    /// ears stay aligned).
    case perEar(left: [NotchSpec], right: [NotchSpec])

    /// The notches of each of `channelCount` channels.
    func notches(channelCount: Int) -> [[NotchSpec]] {
        switch self {
        case .everyChannel(let list): return Array(repeating: list, count: channelCount)
        case .perEar(let left, let right): return [left, right]
        }
    }

    /// Text for the comment tag, e.g. "notch=6000Hz/1oct" or "left=4000Hz/0.5oct+20dB/0.375oct right=…".
    var summary: String {
        switch self {
        case .everyChannel(let notches): return "notch=" + notches.summaryText
        case .perEar(let left, let right): return "left=\(left.summaryText) right=\(right.summaryText)"
        }
    }
}

extension [NotchSpec] {
    /// "6000Hz/1oct", "4000Hz/0.5oct+20dB/0.375oct,8000Hz/1oct" or "none".
    var summaryText: String {
        isEmpty ? "none" : map { n in
            "\(formatNumber(n.centreHz))Hz/\(formatNumber(n.widthOctaves))oct"
                + (n.edgeBoostDB == 0 ? "" : "+\(formatNumber(n.edgeBoostDB))dB/\(formatNumber(n.edgeWidthOctaves))oct")
        }.joined(separator: ",")
    }
}

/// One file to notch: an input in any format libsndfile reads, an output WAV or FLAC.
public struct NotchJob: Sendable, Equatable, Codable {
    public var inputPath: String
    /// Output file, `.wav` or `.flac`; its folder is created if missing.
    public var outputPath: String
    public var notches: NotchLayout
    /// Output rate in Hz (8,000 … 192,000, whole); nil keeps the input's rate.
    public var outputRateHz: Double?
    /// libsamplerate converter used when the rate changes.
    public var resamplerQuality: Resampler.Quality
    /// s24 by default: s16's TPDF dither floor (about −101 dBFS, white) would refill a deep notch.
    public var sampleFormat: SampleFormat
    /// Highest true peak the output may reach, in dBTP (−20 … 0; −1 by default, EBU R 128).
    public var ceilingDBTP: Double

    public init(inputPath: String, outputPath: String, notches: NotchLayout, outputRateHz: Double? = nil,
                resamplerQuality: Resampler.Quality = .best, sampleFormat: SampleFormat = .s24, ceilingDBTP: Double = -1) {
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.notches = notches
        self.outputRateHz = outputRateHz
        self.resamplerQuality = resamplerQuality
        self.sampleFormat = sampleFormat
        self.ceilingDBTP = ceilingDBTP
    }
}

/// How much of the music's power lies in and beside one notch: what a notched-music therapy needs to
/// mean anything (the notch removes the band; the lateral-inhibition rationale needs power next to it).
///
/// Shares are of the power from 20 Hz to Nyquist of the input (after resampling), from its Welch spectrum
/// (Hann frames of the notch filter's FFT size, taken from the filter's own transforms), averaged over
/// ``channels``.
public struct NotchSuitability: Sendable, Codable, Equatable {
    /// The channels measured (0-based), whose spectra were averaged: those with this notch.
    public let channels: [Int]
    public let notch: NotchSpec
    /// The notch band's edges in Hz: centre·2^(∓width/2).
    public let lowerEdgeHz: Double
    public let upperEdgeHz: Double
    /// Percent of the power inside the notch band.
    public let bandSharePercent: Double
    /// Percent of the power in the half octave below the lower edge.
    public let belowSharePercent: Double
    /// Percent of the power in the half octave above the upper edge (up to Nyquist).
    public let aboveSharePercent: Double
    /// Band plus both half octaves, in percent: compared with ``NotchedMusic/minimumNearSharePercent``.
    public let nearSharePercent: Double
    /// The same shares in dB re the total power (10·log10 of the fraction; −300 for none).
    public let bandLevelDB: Double
    public let belowLevelDB: Double
    public let aboveLevelDB: Double
    public let nearLevelDB: Double
    /// Why the music is unsuited to this notch, or nil.
    public let warning: String?

    init(channels: [Int], notch: NotchSpec, bandSharePercent: Double, belowSharePercent: Double,
         aboveSharePercent: Double, warning: String?) {
        self.channels = channels
        self.notch = notch
        lowerEdgeHz = notch.lowerEdgeHz
        upperEdgeHz = notch.upperEdgeHz
        self.bandSharePercent = bandSharePercent
        self.belowSharePercent = belowSharePercent
        self.aboveSharePercent = aboveSharePercent
        nearSharePercent = bandSharePercent + belowSharePercent + aboveSharePercent
        bandLevelDB = Self.decibels(bandSharePercent)
        belowLevelDB = Self.decibels(belowSharePercent)
        aboveLevelDB = Self.decibels(aboveSharePercent)
        nearLevelDB = Self.decibels(nearSharePercent)
        self.warning = warning
    }

    /// 10·log10 of a share given in percent; −300 for none.
    static func decibels(_ percent: Double) -> Double { percent > 0 ? Decibels.fromPower(percent / 100) : -300 }
}

/// What ``NotchedMusic/process(_:)`` did to one file.
public struct NotchReport: Sendable, Codable, Equatable {
    public let input: String
    public let output: String
    /// Input and output rates in Hz.
    public let inputSampleRate: Double
    public let sampleRate: Double
    public let channels: Int
    /// Input frames decoded (for MP3 and Ogg, whose header only estimates the length, a count the header
    /// may exceed).
    public let inputFrames: Int
    /// Output frames: the input's (after resampling, round(n · rate ratio)).
    public let frames: Int
    /// The notch filters' output delay removed, in output frames (the longest channel's; shorter ones were
    /// delayed to it).
    public let outputDelayFrames: Int
    public let sampleFormat: SampleFormat
    /// True peak of the input after resampling (before the notches), dBTP, largest over channels.
    public let inputTruePeakDBTP: Double
    /// True peak of the notched signal before the gain, dBTP, largest over channels.
    public let truePeakBeforeGainDBTP: Double
    /// Gain applied to the whole file so its true peak stays at or below the ceiling, in dB (0 or less).
    public let gainDB: Double
    /// The ceiling asked for, dBTP.
    public let ceilingDBTP: Double
    /// The output's true peak: before-gain peak plus the gain, dBTP.
    public let truePeakDBTP: Double
    /// Power in and beside each notch, per group of channels sharing notches.
    public let suitability: [NotchSuitability]
    /// The suitability warnings.
    public let warnings: [String]
    /// Things the user should know, e.g. a notch too low for a filter as steep as specified.
    public let notes: [String]
    /// Set when the frames read are not all the input announces or holds (``AudioFileInput/lengthWarning``:
    /// a cut MP3, or one libsndfile stops reading at its estimate): the frames read were notched.
    public let lengthWarning: String?
}

// MARK: - Processing

/// Tailor-made notched music (TMNMT; Okamoto 2010, Pantev 2012): any sound file with the band around a
/// measured tinnitus frequency removed, optionally with the bands beside the notch boosted (Stein 2016),
/// streamed in bounded memory.
///
/// The chain is: decode block by block (``AudioFileInput``) → resample if another rate is asked
/// (``StreamingResampler``) → a ``NotchFilter`` per channel → gain → quantise → ``AudioFileOutput`` under
/// ``AtomicFile``. It runs twice: pass 1 measures the notched signal's true peak (BS.1770, 4× oversampled)
/// and the input's spectrum around each notch; pass 2 runs the same chain again with the one gain that
/// keeps the true peak at or below the ceiling, and writes. Nothing is held but a few blocks and the filters
/// (with pass 1's spectrum sums: about 1.3 MB per channel for a 500 Hz notch at 48 kHz, less above). A
/// reader thread decodes ahead of the filters.
///
/// The output is sample-aligned with the input and exactly as long: the filter delay is removed from the
/// start and flushed with zeros at the end; channels with a shorter delay are delayed to the longest. Its
/// length is the decoded one, found by pass 1: for MP3 and Ogg the header only estimates it.
public enum NotchedMusic {
    /// Frames per block read, filtered and written.
    public static let blockFrames = 131_072
    /// A notch whose band plus the half octaves beside it hold less than this share of the music's power
    /// (in percent: 1 % is −20 dB) gets a warning. Pink noise, equal power per octave over the ten audible
    /// octaves, holds 20 % in the two octaves of a 1-octave notch and its half octaves; music whose energy
    /// there is 20× smaller is barely touched by the notch.
    public static let minimumNearSharePercent = 1.0
    /// Lowest frequency counted in the music's total power, in Hz (excludes DC and rumble).
    public static let totalPowerFromHz = 20.0
    /// Jobs run at once by default: the number of cores.
    public static var defaultConcurrency: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Notches one file (see the type's description). Throws `.usage` for bad parameters (a band the
    /// filter cannot make, an output that is the input, an output extension or format that does not fit)
    /// and `.runtime` for files that cannot be read (missing, empty, truncated, corrupt, unknown format)
    /// or written. On any error no output is left behind and the input is untouched. An MP3 or Ogg file
    /// not read whole (shorter than its header estimates, or cut by libsndfile at its estimate) is notched
    /// as far as it is read, with ``NotchReport/lengthWarning``.
    public static func process(_ job: NotchJob) throws(RenderError) -> NotchReport {
        let plan = try NotchPlan(job: job)
        var created: [String] = []
        do throws(RenderError) {
            let measured: NotchPlan.Measurements
            do throws(AudioFileError) { measured = try plan.run(.measure) } catch { throw RenderError(error) }
            let gain = plan.gain(forPeak: measured.outputPeak)
            created = try FolderCreation.create(plan.foldersToCreate)
            let comment = Self.comment(for: job, inputRate: plan.inputRate, outputRate: plan.outputRate,
                                       gainDB: Decibels.fromAmplitude(Double(gain)))
            do throws(AudioFileError) {
                try AtomicFile.write(to: job.outputPath) { (temporary: AtomicFile.Temporary) throws(AudioFileError) in
                    let output = try AudioFileOutput(file: temporary, sampleRate: Int(plan.outputRate),
                                                     channelCount: plan.channelCount, format: plan.format,
                                                     frameCount: measured.outputFrames, comment: comment)
                    _ = try plan.run(.write(output, gain: gain, inputFrames: measured.inputFrames))
                    try output.close()
                }
            } catch { throw RenderError(error) }
            let suitability = plan.suitability(measured.spectra)
            return NotchReport(
                input: job.inputPath, output: job.outputPath, inputSampleRate: plan.inputRate, sampleRate: plan.outputRate,
                channels: plan.channelCount, inputFrames: measured.inputFrames, frames: measured.outputFrames,
                outputDelayFrames: measured.outputDelay, sampleFormat: job.sampleFormat,
                inputTruePeakDBTP: Decibels.fromAmplitude(measured.inputPeak),
                truePeakBeforeGainDBTP: Decibels.fromAmplitude(measured.outputPeak),
                gainDB: Decibels.fromAmplitude(Double(gain)), ceilingDBTP: job.ceilingDBTP,
                truePeakDBTP: Decibels.fromAmplitude(measured.outputPeak * Double(gain)),
                suitability: suitability, warnings: suitability.compactMap(\.warning), notes: plan.notes,
                lengthWarning: measured.lengthWarning)
        } catch {
            FolderCreation.remove(created)
            throw error
        }
    }

    /// Notches several files, `concurrency` at a time (the core count by default); each job is independent,
    /// written atomically, and has its own result, in the order of `jobs`. A job whose output is another
    /// job's input or an earlier job's output fails without running.
    public static func processBatch(_ jobs: [NotchJob],
                                    concurrency: Int = defaultConcurrency) -> [Result<NotchReport, RenderError>] {
        let slots = ResultSlots<Result<NotchReport, RenderError>>(count: jobs.count)
        var runnable: [Int] = []
        let inputs = jobs.map { PathIdentity($0.inputPath) }
        var outputs: [PathIdentity] = []
        for (i, job) in jobs.enumerated() {
            let output = PathIdentity(job.outputPath)
            if let j = inputs.indices.first(where: { $0 != i && inputs[$0] == output }) {
                slots[i] = .failure(.usage("output \(job.outputPath) is the input of another job (\(jobs[j].inputPath)) "
                                           + "(allowed: a file that is no job's input)"))
            } else if let j = outputs.firstIndex(of: output) {
                slots[i] = .failure(.usage("output \(job.outputPath) is also the output of \(jobs[j].inputPath) "
                                           + "(allowed: one output per file)"))
            } else {
                runnable.append(i)
            }
            outputs.append(output)
        }
        let next = JobCounter()
        let group = DispatchGroup()
        let work = runnable
        for _ in 0..<min(max(1, concurrency), max(1, work.count)) {
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
                while true {
                    let k = next.value.add(1, ordering: .relaxed).oldValue
                    guard k < work.count else { return }
                    let i = work[k]
                    do throws(RenderError) { slots[i] = .success(try process(jobs[i])) } catch { slots[i] = .failure(error) }
                }
            }
        }
        group.wait()
        return slots.values
    }

    /// The comment tag: every parameter needed to make the file again, and the gain applied.
    public static func comment(for job: NotchJob, inputRate: Double, outputRate: Double, gainDB: Double) -> String {
        let name = job.inputPath.split(separator: "/").last.map(String.init) ?? job.inputPath
        var text = "\(AudioFileWriter.software) notch input=\(name) \(job.notches.summary)"
        text += " rate=\(formatNumber(outputRate))"
        if outputRate != inputRate { text += " input_rate=\(formatNumber(inputRate)) resampler=\(job.resamplerQuality.rawValue)" }
        text += " format=\(job.sampleFormat.rawValue) ceiling=\(formatNumber(job.ceilingDBTP))dBTP"
        text += " gain=\(String(format: gainDB, digits: 2))dB"
        return text
    }
}

// MARK: - Plan: the validated job

/// A job checked and opened: rates, designs, latencies, the folders to create.
struct NotchPlan {
    let job: NotchJob
    let format: AudioFileFormat
    let inputRate: Double
    let outputRate: Double
    let channelCount: Int
    /// Frames the input's header announces: for MP3 and Ogg an estimate (pass 1 finds the decoded length).
    let announcedFrames: Int
    /// Notches per channel, and the design for each (nil: none on that channel).
    let channelNotches: [[NotchSpec]]
    let designs: [NotchDesign?]
    let foldersToCreate: [String]
    /// Things the user should know (a filter that could not be as steep as specified).
    let notes: [String]

    /// Most frames a file may announce: 24 hours at 192 kHz (libsndfile announces 2⁶³ − 1 when it cannot
    /// find the end of a stream, e.g. a cut-off Ogg file).
    static let longestFrames = 24 * 3600 * 192_000

    init(job: NotchJob) throws(RenderError) {
        self.job = job
        do throws(AudioFileError) {
            format = try AudioFileFormat(container: try Container(path: job.outputPath), sampleFormat: job.sampleFormat)
        } catch { throw RenderError(error) }
        guard job.ceilingDBTP.isFinite, job.ceilingDBTP >= -20, job.ceilingDBTP <= 0 else {
            throw .usage(ParameterError(parameter: "ceiling", value: "\(job.ceilingDBTP) dBTP", allowed: "-20 … 0 dBTP").description)
        }
        if let rate = job.outputRateHz {
            do throws(ParameterError) {
                try validateSampleRate(rate)
                guard rate == rate.rounded() else {
                    throw ParameterError(parameter: "rate", value: "\(rate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
                }
            } catch { throw .usage(error.description) }
        }
        if PathIdentity(job.outputPath) == PathIdentity(job.inputPath) {
            throw .usage("output \(job.outputPath) is the input file \(job.inputPath) "
                         + "(allowed: a different file; the input is never overwritten)")
        }

        // The input: opened to read its header (closed again; each pass reopens it).
        let input: AudioFileInput
        do throws(AudioFileError) { input = try AudioFileInput(path: job.inputPath) } catch { throw RenderError(error) }
        if let problem = input.truncation {
            throw .runtime("cannot read \(job.inputPath): the file is truncated or corrupt (\(problem))")
        }
        inputRate = Double(input.sampleRate)
        channelCount = input.channelCount
        announcedFrames = input.frameCount
        guard announcedFrames <= Self.longestFrames else {
            throw .runtime("cannot read \(job.inputPath): the file is truncated or corrupt (its length is unknown)")
        }
        outputRate = job.outputRateHz ?? inputRate
        do throws(ParameterError) { try validateSampleRate(inputRate) } catch {
            throw .runtime("cannot process \(job.inputPath): its rate \(formatNumber(inputRate)) Hz is out of range "
                           + "(allowed: 8000 … 192000 Hz)")
        }

        if case .perEar = job.notches, channelCount != 2 {
            throw .usage("--left/--right need a stereo input: \(job.inputPath) has \(channelCount) "
                         + "channel\(channelCount == 1 ? "" : "s") (allowed: 2 channels, or the same notches for every channel)")
        }
        let notches = job.notches.notches(channelCount: channelCount)
        guard notches.contains(where: { !$0.isEmpty }) else {
            throw .usage("notch frequency is missing (allowed: at least one notch on at least one channel)")
        }
        channelNotches = notches
        var made: [(notches: [NotchSpec], design: NotchDesign)] = []
        var designs: [NotchDesign?] = []
        for list in notches {
            guard !list.isEmpty else { designs.append(nil); continue }
            if let same = made.first(where: { $0.notches == list }) { designs.append(same.design); continue }
            do throws(ParameterError) {
                let design = try NotchDesign(notches: list, sampleRate: outputRate)
                made.append((list, design))
                designs.append(design)
            } catch { throw .usage(error.description) }
        }
        self.designs = designs
        let rate = outputRate
        notes = made.map(\.design).filter(\.isLengthCapped).map { design in
            "the notches \(design.notches.summaryText) need a longer filter than allowed at \(formatNumber(rate)) Hz: "
                + "their transitions are \(formatNumber((design.transitionHz * 10).rounded() / 10)) Hz wide, wider than specified"
        }
        foldersToCreate = try FolderCreation.missingFolders(for: job.outputPath)
    }

    /// The gain (≤ 1) that brings a true peak of `peak` (linear) to the ceiling, less a margin for the
    /// quantisation (2 LSB in s16, 2 LSB in s24).
    func gain(forPeak peak: Double) -> Float {
        let margin: Double
        switch job.sampleFormat {
        case .s16: margin = 2.0 / 32_768
        case .s24: margin = 2.0 / 8_388_608
        case .f32: margin = 0
        }
        let limit = min(Decibels.amplitude(job.ceilingDBTP), job.sampleFormat.clipLimit) - margin
        guard peak > limit else { return 1 }
        return Float(limit / peak)
    }

    /// The suitability of each group of channels that share their notches.
    func suitability(_ spectra: [PowerSpectrum?]) -> [NotchSuitability] {
        var groups: [(notches: [NotchSpec], channels: [Int])] = []
        for (c, list) in channelNotches.enumerated() where !list.isEmpty {
            if let g = groups.firstIndex(where: { $0.notches == list }) {
                groups[g].channels.append(c)
            } else {
                groups.append((list, [c]))
            }
        }
        let nyquist = outputRate / 2
        return groups.flatMap { group -> [NotchSuitability] in
            let spectrum = PowerSpectrum.average(group.channels.compactMap { spectra[$0] })
            let total = spectrum?.bandPower(from: NotchedMusic.totalPowerFromHz, to: nyquist) ?? 0
            return group.notches.map { notch in
                let (lower, upper) = (notch.lowerEdgeHz, notch.upperEdgeHz)
                func share(_ from: Double, _ to: Double) -> Double {
                    guard let spectrum, total > 0, to > from else { return 0 }
                    return 100 * spectrum.bandPower(from: from, to: to) / total
                }
                let band = share(lower, min(upper, nyquist))
                let below = share(lower / 2.0.squareRoot(), lower)
                let above = share(upper, min(upper * 2.0.squareRoot(), nyquist))
                let near = band + below + above
                let warning: String?
                let name = "\(formatNumber(notch.centreHz)) Hz"
                if spectrum == nil {
                    warning = "the music is too short to measure its power near \(name)"
                } else if total <= 0 {
                    warning = "the music is silent: a notch at \(name) changes nothing"
                } else if near < NotchedMusic.minimumNearSharePercent {
                    warning = "the music has too little power near \(name) for the therapy: \(String(format: near, digits: 2)) % "
                        + "(\(String(format: NotchSuitability.decibels(near), digits: 1)) dB) of its power lies in the notch and the half "
                        + "octaves beside it (needed: at least \(formatNumber(NotchedMusic.minimumNearSharePercent)) %)"
                } else {
                    warning = nil
                }
                return NotchSuitability(channels: group.channels, notch: notch, bandSharePercent: band,
                                        belowSharePercent: below, aboveSharePercent: above, warning: warning)
            }
        }
    }

    // MARK: Passes

    enum Pass {
        /// Pass 1: the input's length, spectrum and true peak, the notched signal's true peak.
        case measure
        /// Pass 2: the notched signal times `gain`, quantised and written; the input must decode to
        /// `inputFrames` again.
        case write(AudioFileOutput, gain: Float, inputFrames: Int)
    }

    /// Output frames for `inputFrames` decoded frames: as many, or round(n · rate ratio) when resampling.
    func outputFrames(forInput inputFrames: Int) -> Int {
        outputRate == inputRate ? inputFrames
            : StreamingResampler.outputFrameCount(inputFrames: inputFrames, inputRate: inputRate, outputRate: outputRate)
    }

    struct Measurements {
        /// Input frames decoded, and the output frames they make.
        var inputFrames = 0
        var outputFrames = 0
        /// ``AudioFileInput/lengthWarning`` once decoded.
        var lengthWarning: String?
        /// The filter delay removed, frames.
        var outputDelay = 0
        /// Largest true peaks over channels, linear.
        var inputPeak = 0.0
        var outputPeak = 0.0
        /// Each channel's input spectrum (nil if it could not be measured: too short).
        var spectra: [PowerSpectrum?] = []
    }

    /// Runs the chain over the whole file once.
    func run(_ pass: Pass) throws(AudioFileError) -> Measurements {
        let measuring: Bool
        if case .measure = pass { measuring = true } else { measuring = false }
        let block = NotchedMusic.blockFrames
        // Channels with the same notches share one filter response (each has its own state).
        var filters: [NotchFilter?] = []
        for c in 0..<channelCount {
            guard let design = designs[c] else { filters.append(nil); continue }
            if let twin = (0..<c).first(where: { filters[$0] != nil && channelNotches[$0] == channelNotches[c] }) {
                filters.append(NotchFilter(sharingResponseOf: filters[twin]!))
            } else {
                filters.append(NotchFilter(design: design))
            }
        }
        // The common delay removed: the largest channel's (shorter ones are delayed to it).
        let outputDelay = filters.map { $0?.outputDelayFrames ?? 0 }.max() ?? 0
        let chains = (0..<channelCount).map { c in
            ChannelChain(filter: filters[c], commonOutputDelay: outputDelay, sampleRate: outputRate, blockFrames: block,
                         measuring: measuring, ditherKey: SeedStream.dither.key(seed: 1, channel: c))
        }
        let stage = ChainStage(chains: chains, pass: pass, outputDelay: outputDelay, blockFrames: block)

        let input = try AudioFileInput(path: job.inputPath)
        let changed = AudioFileError.runtime("cannot read \(job.inputPath): the file changed while it was being processed")
        guard input.sampleRate == Int(inputRate), input.channelCount == channelCount, input.frameCount == announcedFrames else {
            throw changed
        }
        let resampler = outputRate == inputRate ? nil
            : try StreamingResampler(channelCount: channelCount, inputRate: inputRate, outputRate: outputRate,
                                     quality: job.resamplerQuality, outputBlockFrames: block)
        // A reader thread decodes (and resamples) ahead while this thread filters and writes. The input
        // ends when a read returns 0 (an estimated length is no end): an empty last block flushes the resampler.
        let channelCount = self.channelCount
        let readAhead = ReadAhead(channelCount: channelCount, blockFrames: block) { fill throws(AudioFileError) in
            guard let resampler else {
                var n = 0
                while try fill({ (slot: AudioBlock) throws(AudioFileError) -> Int in n = try input.read(into: slot); return n }),
                      n > 0 {}
                return
            }
            let buffer = AudioBuffer(channelCount: channelCount, frameCapacity: block, zeroed: false)
            var going = true
            while going && !resampler.isFinished {
                let n = try buffer.withBlock { (b: AudioBlock) throws(AudioFileError) in try input.read(into: b) }
                try buffer.withBlock(frames: 0..<n) { (b: AudioBlock) throws(AudioFileError) in
                    try resampler.process(b, endOfInput: n == 0) { (o: AudioBlock) throws(AudioFileError) in
                        guard going else { return }
                        going = try fill { (slot: AudioBlock) -> Int in
                            for c in 0..<channelCount { _ = slot.channel(c).update(fromContentsOf: o.channel(c)) }
                            return o.frameCount
                        }
                    }
                }
            }
        }
        defer { readAhead.stop() }
        while try readAhead.next({ (b: AudioBlock) throws(AudioFileError) in try stage.add(b) }) != nil {}
        try stage.flush()
        // The reader has finished: the input is this thread's again.
        var result = Measurements()
        result.inputFrames = input.framesRead
        result.outputFrames = outputFrames(forInput: input.framesRead)
        result.lengthWarning = input.lengthWarning
        if case .write(_, _, let inputFrames) = pass, inputFrames != result.inputFrames { throw changed }
        guard stage.written == result.outputFrames else {
            throw AudioFileError.runtime("cannot read \(job.inputPath): \(stage.written) of \(result.outputFrames) frames came out")
        }
        result.outputDelay = outputDelay
        if measuring {
            result.inputPeak = chains.map { $0.inputPeak.peak }.max() ?? 0
            result.outputPeak = chains.map { $0.outputPeak.peak }.max() ?? 0
            // Too short to say anything (the rule of a Welch estimate): no spectrum.
            let long = result.inputFrames >= SpectrumAccumulator.minimumFrameCount
            result.spectra = chains.map { chain in long ? chain.filter?.inputSpectrum(sampleRate: outputRate) : nil }
        }
        return result
    }
}

/// The per-block step of a pass: each channel through its chain (in parallel), the filter delay dropped at
/// the start, then the block measured or written.
final class ChainStage {
    let chains: [ChannelChain]
    let pass: NotchPlan.Pass
    let blockFrames: Int
    /// Output frames still to drop (the filter delay).
    private var skip: Int
    /// Filter-delay frames of zeros still to feed at the end.
    private let outputDelay: Int
    /// Frames measured or written so far.
    private(set) var written = 0
    /// Each channel's quantised block, `blockFrames` apart.
    fileprivate let planes16: UnsafeMutableBufferPointer<Int16>
    fileprivate let planesFloat: UnsafeMutableBufferPointer<Float>
    private let interleaved16: UnsafeMutableBufferPointer<Int16>
    private let interleavedFloat: UnsafeMutableBufferPointer<Float>
    private let zeros: AudioBuffer

    init(chains: [ChannelChain], pass: NotchPlan.Pass, outputDelay: Int, blockFrames: Int) {
        self.chains = chains
        self.pass = pass
        self.blockFrames = blockFrames
        self.outputDelay = outputDelay
        skip = outputDelay
        let n = chains.count * blockFrames
        var sixteen = false, float = false
        if case .write(let output, _, _) = pass { sixteen = output.format.sampleFormat == .s16; float = !sixteen }
        planes16 = .allocate(capacity: sixteen ? n : 0)
        interleaved16 = .allocate(capacity: sixteen ? n : 0)
        planesFloat = .allocate(capacity: float ? n : 0)
        interleavedFloat = .allocate(capacity: float ? n : 0)
        zeros = AudioBuffer(channelCount: chains.count, frameCapacity: min(blockFrames, max(1, outputDelay)))
    }

    deinit {
        planes16.deallocate()
        interleaved16.deallocate()
        planesFloat.deallocate()
        interleavedFloat.deallocate()
    }

    /// One block of the (resampled) input, at most `blockFrames` frames.
    func add(_ block: AudioBlock) throws(AudioFileError) {
        try step(block, isInput: true)
    }

    /// Feeds the filter delay's worth of zeros, so the output ends where the input did.
    func flush() throws(AudioFileError) {
        var left = outputDelay
        while left > 0 {
            let n = min(left, zeros.frameCapacity)
            try zeros.withBlock(frames: 0..<n) { (b: AudioBlock) throws(AudioFileError) in try step(b, isInput: false) }
            left -= n
        }
    }

    private func step(_ block: AudioBlock, isInput: Bool) throws(AudioFileError) {
        let n = block.frameCount
        guard n > 0 else { return }
        precondition(n <= blockFrames)
        let drop = min(skip, n)
        skip -= drop
        let kept = n - drop
        let gain: Float
        let output: AudioFileOutput?
        switch pass {
        case .measure: (output, gain) = (nil, 1)
        case .write(let file, let g, _): (output, gain) = (file, g)
        }
        let call = BlockCall(stage: self, block: block, isInput: isInput, drop: drop, kept: kept, output: output, gain: gain)
        if chains.count == 1 {
            call.run(channel: 0)
        } else {
            DispatchQueue.concurrentPerform(iterations: chains.count) { call.run(channel: $0) }
        }
        guard kept > 0 else { return }
        written += kept
        if let output {
            let channels = chains.count
            if output.format.sampleFormat == .s16 {
                Interleave.frames((0..<channels).map { UnsafePointer(planes16.baseAddress! + $0 * blockFrames) },
                                  frames: kept, into: interleaved16.baseAddress!)
                try output.write(UnsafeBufferPointer(rebasing: interleaved16[0..<kept * channels]))
            } else {
                Interleave.frames((0..<channels).map { UnsafePointer(planesFloat.baseAddress! + $0 * blockFrames) },
                                  frames: kept, into: interleavedFloat.baseAddress!)
                try output.write(UnsafeBufferPointer(rebasing: interleavedFloat[0..<kept * channels]))
            }
        }
    }
}

/// The next job of a batch to start.
private final class JobCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// One block through one channel's chain: filtered, the delay dropped, then measured or quantised into the
/// channel's plane. The channels run in parallel; each touches only its own chain and plane.
private struct BlockCall: @unchecked Sendable {
    let stage: ChainStage
    let block: AudioBlock
    let isInput: Bool
    let drop: Int, kept: Int
    let output: AudioFileOutput?
    let gain: Float

    func run(channel c: Int) {
        let chain = stage.chains[c]
        let filtered = chain.process(block.channel(c), isInput: isInput)
        guard kept > 0 else { return }
        let samples = UnsafeBufferPointer(rebasing: filtered[drop..<drop + kept])
        guard let output else {
            chain.outputPeak.add(samples)
            return
        }
        let plane = c * stage.blockFrames..<c * stage.blockFrames + kept
        if output.format.sampleFormat == .s16 {
            chain.quantizer.quantize16(samples, gain: gain, into: UnsafeMutableBufferPointer(rebasing: stage.planes16[plane]))
        } else {
            SignalQuantizer.scale(samples, gain: gain, into: UnsafeMutableBufferPointer(rebasing: stage.planesFloat[plane]))
        }
    }
}

/// One channel's chain: a delay up to the common output delay, its notch filter, and what the pass needs
/// (true peaks, and the filter's input spectrum; or the quantiser).
final class ChannelChain {
    let filter: NotchFilter?
    private let delay: SampleDelay?
    var inputPeak: TruePeakMeter
    var outputPeak: TruePeakMeter
    let measuring: Bool
    var quantizer: SignalQuantizer
    private let delayed: UnsafeMutableBufferPointer<Float>
    private let filtered: UnsafeMutableBufferPointer<Float>

    init(filter: NotchFilter?, commonOutputDelay: Int, sampleRate: Double, blockFrames: Int, measuring: Bool,
         ditherKey: UInt64) {
        self.filter = filter
        let own = filter?.outputDelayFrames ?? 0
        delay = commonOutputDelay > own ? SampleDelay(frames: commonOutputDelay - own) : nil
        self.measuring = measuring
        if measuring { filter?.measureInputSpectrum() }
        inputPeak = TruePeakMeter(sampleRate: sampleRate)
        outputPeak = TruePeakMeter(sampleRate: sampleRate)
        quantizer = SignalQuantizer(ditherKey: ditherKey)
        delayed = .allocate(capacity: blockFrames)
        filtered = .allocate(capacity: blockFrames)
    }

    deinit {
        delayed.deallocate()
        filtered.deallocate()
    }

    /// Measures `samples` (input only, pass 1), delays and filters them; the result is valid until the
    /// next call.
    func process(_ samples: UnsafeMutableBufferPointer<Float>, isInput: Bool) -> UnsafeMutableBufferPointer<Float> {
        let n = samples.count
        let x = UnsafeBufferPointer(samples)
        if measuring && isInput {
            inputPeak.add(x)
        }
        var source = x
        if let delay {
            let target = UnsafeMutableBufferPointer(rebasing: delayed[0..<n])
            delay.process(x, into: target)
            source = UnsafeBufferPointer(target)
        }
        let out = UnsafeMutableBufferPointer(rebasing: filtered[0..<n])
        if let filter {
            filter.process(source, into: out)
        } else {
            _ = out.update(fromContentsOf: source)
        }
        return out
    }
}

/// A delay of a fixed number of frames (a ring buffer).
final class SampleDelay {
    let frames: Int
    private let ring: UnsafeMutableBufferPointer<Float>
    private var position = 0

    init(frames: Int) {
        precondition(frames > 0)
        self.frames = frames
        ring = .allocate(capacity: frames)
        ring.initialize(repeating: 0)
    }

    deinit { ring.deallocate() }

    /// output[i] = input[i − frames] (zeros before the first input).
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        var p = position
        for i in 0..<input.count {
            output[i] = ring[p]
            ring[p] = input[i]
            p += 1
            if p == frames { p = 0 }
        }
        position = p
    }
}

// MARK: - Files and folders

/// A path's identity, for refusing to write over an input: its absolute path with "." and ".." removed
/// and symbolic links in the existing part resolved, plus the file's device and inode when it exists.
/// Two paths are the same file when their canonical paths are equal, or both exist with the same inode
/// (hard links). (Comparing an existing input's inode with a not-yet-existing output's path never
/// matches: "./new-folder/../song.wav" then overwrote song.wav once the folder was made.)
struct PathIdentity: Hashable {
    private let device: UInt64?
    private let inode: UInt64?
    private let path: String

    init(_ path: String) {
        var info = stat()
        let exists = stat(path, &info) == 0
        device = exists ? UInt64(info.st_dev) : nil
        inode = exists ? UInt64(info.st_ino) : nil
        self.path = Self.canonical(path)
    }

    static func == (a: PathIdentity, b: PathIdentity) -> Bool {
        if a.path == b.path { return true }
        if let ai = a.inode, let bi = b.inode, let ad = a.device, let bd = b.device { return ai == bi && ad == bd }
        return false
    }

    /// The canonical path only: hard links to one file compare equal but may hash apart, so identities
    /// are compared pairwise, never through sets.
    func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// The absolute, normalised path: the longest existing prefix through `realpath`, the rest lexically.
    static func canonical(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            absolute = FileManager.default.currentDirectoryPath + "/" + path
        }
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        // Resolve the longest prefix that exists.
        var split = parts.count
        while split > 0 {
            let prefix = "/" + parts[0..<split].joined(separator: "/")
            if let resolved = realpath(prefix, nil) {
                defer { free(resolved) }
                let rest = parts[split...].joined(separator: "/")
                let base = String(cString: resolved)
                return rest.isEmpty ? base : (base == "/" ? "/" : base + "/") + rest
            }
            split -= 1
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// The output's missing folders: found before any work, created just before the file is written, and
/// removed again if writing fails.
enum FolderCreation {
    /// The folders to create for `path`, outermost first; throws if one cannot be created (a file is in
    /// the way, or the nearest existing folder is not writable).
    static func missingFolders(for path: String) throws(RenderError) -> [String] {
        var missing: [String] = []
        var folder = AtomicFile.directory(of: path)
        var info = stat()
        while stat(folder, &info) != 0 {
            guard errno == ENOENT else {
                throw .runtime("cannot create folder \(folder) for \(path): \(String(cString: strerror(errno)))")
            }
            missing.insert(folder, at: 0)
            let parent = AtomicFile.directory(of: folder)
            if parent == folder { break }
            folder = parent
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .runtime("cannot create folder \(missing.first ?? folder) for \(path): \(folder) is a file, not a folder")
        }
        guard access(folder, W_OK) == 0 else {
            throw .runtime("cannot create folder \(missing.first ?? folder) for \(path): \(folder) is not writable")
        }
        if missing.isEmpty {
            do throws(AudioFileError) { try AtomicFile.checkWritable(path) } catch { throw RenderError(error) }
        }
        return missing
    }

    /// Creates `folders` (outermost first); returns those it made.
    static func create(_ folders: [String]) throws(RenderError) -> [String] {
        var made: [String] = []
        for folder in folders {
            if mkdir(folder, 0o777) == 0 {
                made.append(folder)
            } else {
                var info = stat()
                let code = errno
                guard code == EEXIST, stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    remove(made)
                    throw .runtime("cannot create folder \(folder): \(String(cString: strerror(code)))")
                }
            }
        }
        return made
    }

    /// Removes `folders` innermost first, where empty.
    static func remove(_ folders: [String]) {
        for folder in folders.reversed() { rmdir(folder) }
    }
}


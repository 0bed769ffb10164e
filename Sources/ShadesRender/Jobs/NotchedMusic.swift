import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ShadesDSP
import ShadesIO
import ShadesPlatform

// MARK: - Jobs and reports

extension [NotchSpec] {
    /// Notches for bilateral tinnitus with a frequency per ear: `left`'s for the left ear, `right`'s for
    /// the right (an ear with none is left unfiltered, only delayed, so the ears stay aligned).
    package static func perEar(left: [NotchSpec], right: [NotchSpec]) -> [NotchSpec] {
        left.map { var n = $0; n.ears = .left; return n } + right.map { var n = $0; n.ears = .right; return n }
    }

    /// The notches of each of `channelCount` channels (a notch for one ear goes to that channel of a
    /// stereo file).
    func notches(channelCount: Int) -> [[NotchSpec]] {
        (0..<channelCount).map { c in filter { $0.ears == .both || $0.ears.includes(outputChannel: c, of: channelCount) } }
    }

    /// "6000Hz/1oct", "4000Hz/0.5oct+20dB/0.375oct,8000Hz/1oct" or "none".
    var summaryText: String {
        isEmpty ? "none" : map { n in
            "\(formatNumber(n.centreHz))Hz/\(formatNumber(n.widthOctaves))oct"
                + (n.edgeBoostDB == 0 ? "" : "+\(formatNumber(n.edgeBoostDB))dB/\(formatNumber(n.edgeWidthOctaves))oct")
        }.joined(separator: ",")
    }

    /// Text for the comment tag: "notch=6000Hz/1oct", or per ear "left=4000Hz/0.5oct+20dB/0.375oct right=…".
    var commentSummary: String {
        guard contains(where: { $0.ears != .both }) else { return "notch=" + summaryText }
        let left = filter { $0.ears != .right }, right = filter { $0.ears != .left }
        return "left=\(left.summaryText) right=\(right.summaryText)"
    }
}

/// One file to notch: the music and its notches as a ``Sound`` (a file with notches, each for both ears
/// or one), and the output settings: an output WAV or FLAC, its rate, format and true-peak ceiling.
package struct NotchJob: Sendable, Equatable, Encodable {
    /// The music (``Sound/file``) and its ``Sound/notches``: nothing else.
    package var sound: Sound
    /// Output file, `.wav` or `.flac`; its folder is created if missing.
    package var outputPath: String
    /// Output rate in Hz (8,000 … 192,000, whole); nil keeps the input's rate.
    package var outputRateHz: Double?
    /// libsamplerate converter used when the rate changes.
    package var resamplerQuality: Resampler.Quality
    /// s24 by default: s16's TPDF dither floor (about −101 dBFS, white) would refill a deep notch.
    package var sampleFormat: SampleFormat
    /// Highest true peak the output may reach, in dBTP (−20 … 0; −1 by default, EBU R 128).
    package var ceilingDBTP: Double

    package init(inputPath: String, outputPath: String, notches: [NotchSpec], outputRateHz: Double? = nil,
                resamplerQuality: Resampler.Quality = .best, sampleFormat: SampleFormat = .s24, ceilingDBTP: Double = -1) {
        self.sound = Sound(.file(SoundFileReference(path: inputPath)), notches: notches)
        self.outputPath = outputPath
        self.outputRateHz = outputRateHz
        self.resamplerQuality = resamplerQuality
        self.sampleFormat = sampleFormat
        self.ceilingDBTP = ceilingDBTP
    }

    /// The music file's path.
    package var inputPath: String { sound.file?.path ?? "" }
    /// The notches, each for both ears or one.
    package var notches: [NotchSpec] { sound.notches ?? [] }
    /// How the gain is chosen: the music's own level, lowered to keep its true peak under the ceiling.
    package var level: LevelPolicy { .truePeakCeiling(dBTP: ceilingDBTP) }
}

/// How much of the music's power lies in and beside one notch: what a notched-music therapy needs to
/// mean anything (the notch removes the band; the lateral-inhibition rationale needs power next to it).
///
/// Shares are of the power from 20 Hz to Nyquist of the input (after resampling), from its Welch spectrum
/// (Hann frames of the notch filter's FFT size, taken from the filter's own transforms), averaged over
/// ``channels``.
package struct NotchSuitability: Sendable, Encodable, Equatable {
    /// The channels measured (0-based), whose spectra were averaged: those with this notch.
    package let channels: [Int]
    package let notch: NotchSpec
    /// The notch band's edges in Hz: centre·2^(∓width/2).
    package let lowerEdgeHz: Double
    package let upperEdgeHz: Double
    /// Percent of the power inside the notch band.
    package let bandSharePercent: Double
    /// Percent of the power in the half octave below the lower edge.
    package let belowSharePercent: Double
    /// Percent of the power in the half octave above the upper edge (up to Nyquist).
    package let aboveSharePercent: Double
    /// Band plus both half octaves, in percent: compared with ``NotchedMusic/minimumNearSharePercent``.
    package let nearSharePercent: Double
    /// The same shares in dB re the total power (10·log10 of the fraction; −300 for none).
    package let bandLevelDB: Double
    package let belowLevelDB: Double
    package let aboveLevelDB: Double
    package let nearLevelDB: Double
    /// Why the music is unsuited to this notch, or nil.
    package let warning: String?

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
package struct NotchReport: Sendable, Encodable, Equatable {
    package let input: String
    package let output: String
    /// Input and output rates in Hz.
    package let inputSampleRate: Double
    package let sampleRate: Double
    package let channels: Int
    /// Input frames decoded (for MP3 and Ogg, whose header only estimates the length, a count the header
    /// may exceed).
    package let inputFrames: Int
    /// Output frames: the input's (after resampling, round(n · rate ratio)).
    package let frames: Int
    /// The notch filters' output delay removed, in output frames (the longest channel's; shorter ones were
    /// delayed to it).
    package let outputDelayFrames: Int
    package let sampleFormat: SampleFormat
    /// True peak of the input after resampling (before the notches), dBTP, largest over channels.
    package let inputTruePeakDBTP: Double
    /// True peak of the notched signal before the gain, dBTP, largest over channels.
    package let truePeakBeforeGainDBTP: Double
    /// Gain applied to the whole file so its true peak stays at or below the ceiling, in dB (0 or less).
    package let gainDB: Double
    /// The ceiling asked for, dBTP.
    package let ceilingDBTP: Double
    /// The output's true peak: before-gain peak plus the gain, dBTP.
    package let truePeakDBTP: Double
    /// Power in and beside each notch, per group of channels sharing notches.
    package let suitability: [NotchSuitability]
    /// The suitability warnings.
    package let warnings: [String]
    /// Things the user should know, e.g. a notch too low for a filter as steep as specified.
    package let notes: [String]
    /// Set when the frames read are not all the input announces or holds (``AudioFileInput/lengthWarning``:
    /// a cut MP3, or one libsndfile stops reading at its estimate): the frames read were notched.
    package let lengthWarning: String?
}

// MARK: - Processing

/// Tailor-made notched music (TMNMT; Okamoto 2010, Pantev 2012): any sound file with the band around a
/// measured tinnitus frequency removed, optionally with the bands beside the notch boosted (Stein 2016),
/// streamed in bounded memory.
///
/// The chain is: decode block by block (``AudioFileInput``) → resample if another rate is asked
/// (``StreamingResampler``) → a ``NotchFilter`` per channel → gain → quantise → ``AudioFileOutput`` under
/// ``AtomicFile``. Two passes: pass 1 measures the notched signal's true peak (BS.1770, 4× oversampled)
/// and the input's spectrum around each notch, and keeps the notched signal in a scratch file
/// (``ScratchSoundFile``, Float: the same samples); pass 2 reads it back with the one gain that keeps the
/// true peak at or below the ceiling, and writes. So the music is decoded, resampled and notched once
/// (without room for the scratch file, pass 2 runs the chain again). Nothing is held but a few blocks and the filters
/// (with pass 1's spectrum sums: about 1.3 MB per channel for a 500 Hz notch at 48 kHz, less above). A
/// reader thread decodes ahead of the filters.
///
/// The output is sample-aligned with the input and exactly as long: the filter delay is removed from the
/// start and flushed with zeros at the end; channels with a shorter delay are delayed to the longest. Its
/// length is the decoded one, found by pass 1: for MP3 and Ogg the header only estimates it.
package enum NotchedMusic {
    /// A notch whose band plus the half octaves beside it hold less than this share of the music's power
    /// (in percent: 1 % is −20 dB) gets a warning. Pink noise, equal power per octave over the ten audible
    /// octaves, holds 20 % in the two octaves of a 1-octave notch and its half octaves; music whose energy
    /// there is 20× smaller is barely touched by the notch.
    package static let minimumNearSharePercent = 1.0
    /// Lowest frequency counted in the music's total power, in Hz (excludes DC and rumble).
    package static let totalPowerFromHz = 20.0
    /// Jobs run at once by default: the number of cores.
    package static var defaultConcurrency: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Notches one file (see the type's description). Throws `.usage` for bad parameters (a band the
    /// filter cannot make, an output that is the input, an output extension or format that does not fit)
    /// and `.runtime` for files that cannot be read (missing, empty, truncated, corrupt, unknown format)
    /// or written. On any error no output is left behind and the input is untouched. An MP3 or Ogg file
    /// not read whole (shorter than its header estimates, or cut by libsndfile at its estimate) is notched
    /// as far as it is read, with ``NotchReport/lengthWarning``.
    package static func process(_ job: NotchJob) throws(ShadesError) -> NotchReport {
        let plan = try NotchPlan(job: job)
        var created: [String] = []
        do throws(ShadesError) {
            let measured: NotchPlan.Measurements = try plan.measure()
            let gain = plan.gain(forPeak: measured.outputPeak)
            created = try FolderCreation.create(plan.foldersToCreate)
            let comment = Self.comment(for: job, inputRate: plan.inputRate, outputRate: plan.outputRate,
                                       gainDB: Decibels.fromAmplitude(Double(gain)))
            try plan.write(gain: gain, measured: measured, comment: comment)
            FolderCreation.keep(created)
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
    package static func processBatch(_ jobs: [NotchJob],
                                    concurrency: Int = defaultConcurrency) -> [Result<NotchReport, ShadesError>] {
        let slots = ResultSlots<Result<NotchReport, ShadesError>>(count: jobs.count)
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
                    do throws(ShadesError) { slots[i] = .success(try process(jobs[i])) } catch { slots[i] = .failure(error) }
                }
            }
        }
        group.wait()
        return slots.values
    }

    /// The comment tag: every parameter needed to make the file again, and the gain applied.
    package static func comment(for job: NotchJob, inputRate: Double, outputRate: Double, gainDB: Double) -> String {
        let name = job.inputPath.split(separator: "/").last.map(String.init) ?? job.inputPath
        var text = "\(AudioFileWriter.software) notch input=\(name) \(job.notches.commentSummary)"
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

    init(job: NotchJob) throws(ShadesError) {
        self.job = job
        format = try AudioFileFormat(container: try Container(path: job.outputPath), sampleFormat: job.sampleFormat)
        try job.level.validate()
        var plain = job.sound
        plain.notches = nil
        guard job.sound.file != nil, plain == Sound(job.sound.source) else {
            throw .usage("a notch job is a sound file and its notches (allowed: no other modifiers; a render of the sound takes any)")
        }
        if let rate = job.outputRateHz {
            try validateSampleRate(rate)
            guard rate == rate.rounded() else {
                throw ShadesError(parameter: .rate, value: "\(rate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
            }
        }
        if PathIdentity(job.outputPath) == PathIdentity(job.inputPath) {
            throw .usage("output \(job.outputPath) is the input file \(job.inputPath) "
                         + "(allowed: a different file; the input is never overwritten)")
        }

        // The input: opened to read its header (closed again; each pass reopens it).
        let input: AudioFileInput = try AudioFileSource.openInput(path: job.inputPath)
        inputRate = Double(input.sampleRate)
        channelCount = input.channelCount
        announcedFrames = input.frameCount
        outputRate = job.outputRateHz ?? inputRate

        if job.notches.contains(where: { $0.ears != .both }), channelCount != 2 {
            throw .usage("left/right need a stereo input: \(job.inputPath) has \(channelCount) "
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
            let design = try NotchDesign(notches: list, sampleRate: outputRate)
            made.append((list, design))
            designs.append(design)
        }
        self.designs = designs
        let rate = outputRate
        notes = made.map(\.design).filter(\.isLengthCapped).map { design in
            "the notches \(design.notches.summaryText) need a longer filter than allowed at \(formatNumber(rate)) Hz: "
                + "their transitions are \(formatNumber((design.transitionHz * 10).rounded() / 10)) Hz wide, wider than specified"
        }
        do throws(ShadesError) { foldersToCreate = try FolderCreation.missingFolders(for: job.outputPath) } catch {
            throw error
        }
    }

    /// The gain that keeps the output's true peak at or below the job's ceiling.
    func gain(forPeak peak: Double) -> Float {
        LevelPolicy.ceilingGain(forPeak: peak, ceilingDBTP: job.ceilingDBTP, format: job.sampleFormat)
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

    /// Output frames for `inputFrames` decoded frames: as many, or round(n · rate ratio) when resampling.
    func outputFrames(forInput inputFrames: Int) -> Int {
        outputRate == inputRate ? inputFrames
            : StreamingResampler.outputFrameCount(inputFrames: inputFrames, inputRate: inputRate, outputRate: outputRate)
    }

    struct Measurements {
        /// Input frames decoded, and the output frames they make.
        var inputFrames = 0
        var outputFrames = 0
        /// ``AudioFileSource/lengthWarning`` once decoded.
        var lengthWarning: String?
        /// The filter delay removed, frames.
        var outputDelay = 0
        /// Largest true peaks over channels, linear.
        var inputPeak = 0.0
        var outputPeak = 0.0
        /// Each channel's input spectrum (nil if it could not be measured: too short).
        var spectra: [PowerSpectrum?] = []
        /// The notched signal as measured (before the gain), kept for the writing pass; nil when it could
        /// not be kept (no room in the temporary folder): the writing pass then computes it again.
        var notched: ScratchSoundFile?
    }

    /// The chain: the file decoded (and resampled) by a file source, then the notches with a silent past
    /// (delay removed, as long as the input).
    func chain(measuring: Bool) throws(ShadesError) -> (file: AudioFileSource, tap: InputPeakTap?, notched: NotchedSource) {
        let rate = outputRate
        let everyDesign = designs.map { $0 ?? (try! NotchDesign(notches: [], sampleRate: rate)) }
        var tap: InputPeakTap?
        let chain = try FileChain.make(path: job.inputPath, sampleRate: outputRate, quality: job.resamplerQuality, designs: everyDesign,
                                       measuringInputSpectrum: measuring,
                                       tap: measuring ? { file in let t = InputPeakTap(file: file); tap = t; return t } : nil)
        let file = chain.file
        guard file.inputSampleRate == inputRate, file.channelCount == channelCount, file.announcedInputFrames == announcedFrames else {
            throw changed
        }
        return (file, tap, chain.notched!)
    }

    var changed: ShadesError { .input("cannot read \(job.inputPath): the file changed while it was being processed") }

    /// Pass 1: the input's length, spectrum and true peak, the notched signal's true peak; the notched
    /// signal is kept in a scratch file for pass 2, so the music is decoded, resampled and notched once.
    func measure() throws(ShadesError) -> Measurements {
        let (file, tap, notched) = try chain(measuring: true)
        let meters = Array(repeating: TruePeakMeter(sampleRate: outputRate), count: channelCount)
        let (peaks, frames, kept) = KeptPass.run(notched, until: file, meters: meters,
                                                 expectedFrames: outputFrames(forInput: announcedFrames))
        if let failure = file.failure { throw failure }
        var result = Measurements()
        result.inputFrames = file.inputFramesDecoded ?? 0
        result.outputFrames = frames
        result.lengthWarning = file.lengthWarning
        result.outputDelay = notched.lookaheadFrames
        result.inputPeak = tap?.peaks.map(\.peak).max() ?? 0
        result.outputPeak = peaks.map(\.peak).max() ?? 0
        // Too short to say anything (the rule of a Welch estimate): no spectrum.
        let long = result.inputFrames >= WelchWindow.minimumFrameCount
        result.spectra = (0..<channelCount).map { long ? notched.inputSpectrum(channel: $0) : nil }
        result.notched = kept
        return result
    }

    /// Pass 2: the same chain again times `gain`, quantised and written; the input must decode to the
    /// same length.
    func write(gain: Float, measured: Measurements, comment: String) throws(ShadesError) {
        if let kept = measured.notched {
            // The notched signal of pass 1, read back (its frames past the output's end are not read).
            let notched = try KeptPass.readBack(kept)
            try write(notched, gain: gain, measured: measured, comment: comment) { () throws(ShadesError) in
                if let failure = notched.failure { throw failure }
            }
            return
        }
        let (file, _, notched) = try chain(measuring: false)
        try write(notched, gain: gain, measured: measured, comment: comment) { () throws(ShadesError) in
            // The filters render past the end, so the file source has met it.
            if let failure = file.failure { throw failure }
            guard file.inputFramesDecoded == measured.inputFrames else { throw changed }
        }
    }

    /// Writes `notched` times `gain`, quantised, then runs `check` before the file is put in place.
    private func write(_ notched: any AudioSource, gain: Float, measured: Measurements, comment: String,
                       check: () throws(ShadesError) -> Void) throws(ShadesError) {
        let sink = try FileSink(path: job.outputPath, sampleFormat: job.sampleFormat, sampleRate: Int(outputRate),
                                channelMap: Array(0..<channelCount),
                                ditherKeys: (0..<channelCount).map { SeedStream.dither.key(seed: 1, channel: $0) },
                                comment: comment, chunkFrames: FileChain.blockFrames)
        try sink.create { (writer: FileSink.Writer) throws(ShadesError) in
            _ = try writer.write(SourceGroups([notched]), frames: measured.outputFrames,
                                 gains: Array(repeating: gain, count: channelCount), meters: [SignalMeasurement]?.none)
            try check()
        }
    }
}

/// The input's true peak per channel (after resampling, before the notches), over the file's frames only.
final class InputPeakTap: AudioSource {
    let file: AudioFileSource
    private(set) var peaks: [TruePeakMeter]
    private var position = 0
    var sampleRate: Double { file.sampleRate }
    var channelCount: Int { file.channelCount }

    init(file: AudioFileSource) {
        self.file = file
        peaks = Array(repeating: TruePeakMeter(sampleRate: file.sampleRate), count: file.channelCount)
    }

    /// Prepares the file (a tap runs offline, but it answers like every source).
    func prepareForRealTime(_ preparation: RealTimePreparation) { file.prepareForRealTime(preparation) }

    func render(into block: AudioBlock) {
        file.render(into: block)
        let valid = max(0, min(block.frameCount, (file.frameCount ?? Int.max) - position))
        for c in 0..<channelCount where valid > 0 { peaks[c].add(UnsafeBufferPointer(rebasing: block.channel(c)[0..<valid])) }
        position += block.frameCount
    }
}

/// The next job of a batch to start.
private final class JobCounter: Sendable {
    let value = Atomic<Int>(0)
}


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

// MARK: - Processing

/// Tailor-made notched music (TMNMT; Okamoto 2010, Pantev 2012): any sound file with the band around a
/// measured tinnitus frequency removed, optionally with the bands beside the notch boosted (Stein 2016),
/// streamed in bounded memory.
///
/// A job is a ``RenderRequest`` of its file sound under a true-peak ceiling, at the file's rate or the one
/// asked, rendered by ``Renderer/renderFile(_:to:sampleFormat:ditherSeed:keepsFileSound:comment:)`` as
/// `render FILE --notch` renders it (``FileSoundPasses``: decoded, resampled and notched once, kept in a
/// scratch file, written at the one gain that keeps the true peak at or below the ceiling), with the
/// `notch` command's comment tag. Its first pass also measures the input (``GraphSoundFile/measuringInput``):
/// its true peak and its spectrum around each notch, from which ``suitability(_:channelNotches:sampleRate:)``
/// reports whether the music suits the therapy.
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
        let created = try FolderCreation.create(plan.foldersToCreate)
        do throws(ShadesError) {
            let file = plan.graph.soundFile!
            file.measuringInput = true
            var chosen: LevelGains?
            let rendered = try Renderer.renderFile(plan.graph, to: job.outputPath, sampleFormat: job.sampleFormat,
                                                   ditherSeed: plan.request.resolvedSeed) { gains in
                chosen = gains
                return Self.comment(for: job, inputRate: file.sampleRate, outputRate: plan.request.sampleRate, gainDB: gains.gainDB)
            }
            FolderCreation.keep(created)
            let input = file.measuredInput!
            let inputFrames = input.file.inputFramesDecoded ?? 0
            // Too short to say anything (the rule of a Welch estimate): no spectrum.
            let long = inputFrames >= WelchWindow.minimumFrameCount
            let spectra = (0..<file.channelCount).map { long ? input.notched?.inputSpectrum(channel: $0) : nil }
            let suitability = suitability(spectra, channelNotches: plan.channelNotches, sampleRate: plan.request.sampleRate)
            let gain = rendered.gains.first ?? 1
            return NotchReport(
                input: job.inputPath, output: job.outputPath, inputSampleRate: file.sampleRate, sampleRate: plan.request.sampleRate,
                channels: file.channelCount, inputFrames: inputFrames, frames: rendered.frames,
                outputDelayFrames: input.notched?.lookaheadFrames ?? 0, sampleFormat: job.sampleFormat,
                inputTruePeakDBTP: Decibels.fromAmplitude(input.tap.peaks.map(\.peak).max() ?? 0),
                truePeakBeforeGainDBTP: Decibels.fromAmplitude(chosen?.truePeakBeforeGain ?? 0),
                gainDB: Decibels.fromAmplitude(Double(gain)), ceilingDBTP: job.ceilingDBTP,
                truePeakDBTP: Decibels.fromAmplitude(rendered.peak),
                suitability: suitability, warnings: suitability.compactMap(\.warning), notes: plan.notes,
                lengthWarning: input.file.lengthWarning)
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

/// A job checked, as a request and its graph (the input's header read once, here): the notches per
/// channel, the folders to create, the notes.
struct NotchPlan {
    let request: RenderRequest
    let graph: SoundGraph
    /// Notches per channel (empty: none on that channel).
    let channelNotches: [[NotchSpec]]
    let foldersToCreate: [String]
    /// Things the user should know (a filter that could not be as steep as specified).
    let notes: [String]

    init(job: NotchJob) throws(ShadesError) {
        _ = try AudioFileFormat(container: try Container(path: job.outputPath), sampleFormat: job.sampleFormat)
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

        // The input's header, read once: its decoder is the first pass's.
        let file = try GraphSoundFile(path: job.inputPath)
        let channelCount = file.channelCount
        let outputRate = job.outputRateHz ?? file.sampleRate
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
        for list in notches where !list.isEmpty && !made.contains(where: { $0.notches == list }) {
            made.append((list, try NotchDesign(notches: list, sampleRate: outputRate)))
        }
        notes = made.map(\.design).filter(\.isLengthCapped).map { design in
            "the notches \(design.notches.summaryText) need a longer filter than allowed at \(formatNumber(outputRate)) Hz: "
                + "their transitions are \(formatNumber((design.transitionHz * 10).rounded() / 10)) Hz wide, wider than specified"
        }
        foldersToCreate = try FolderCreation.missingFolders(for: job.outputPath)
        // The file's own channels, dithered as `notch` always was (seed 1).
        var request = RenderRequest(sound: job.sound, durationSeconds: RenderRequest.untilEndOfFile, sampleRate: outputRate,
                                    level: job.level, seed: 1)
        request.resamplerQuality = job.resamplerQuality
        self.request = request
        graph = try SoundGraph(request, opened: file)
    }
}

/// The next job of a batch to start.
private final class JobCounter: Sendable {
    let value = Atomic<Int>(0)
}


#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesPlatform

/// One file of a stimulus set, as listed in its `index.json`.
package struct StimulusFile: Codable, Sendable, Equatable {
    /// File name inside the set's folder.
    package let file: String
    /// "pulsed-tone", "tone" or "nbn".
    package let kind: String
    /// Tone frequency or band centre, in Hz.
    package let frequency: Double
    /// Band width in octaves (narrow-band noise only).
    package let widthOctaves: Double?
    /// "left", "right" or "both".
    package let ear: String
    /// Length in seconds.
    package let duration: Double
    /// RMS level in dBFS of the sustained sound.
    package let level: Double
    /// Seconds of sound before the silence (a residual-inhibition masker), when the file ends in silence.
    package var soundSeconds: Double? = nil
    /// Level relative to the reference (threshold or minimum masking level) the set was made for, dB.
    package var relativeLevel: Double? = nil
    /// The tinnitus-quality cluster the sound stands for (`stimuli tinnitus-quality`).
    package var quality: String? = nil
    /// The sound's parameters, e.g. "tinnitus-pulse frequency=500Hz width=2oct heart-rate=72BPM".
    package var sound: String? = nil
    /// The level of each frequency bin, dB (a reverse-correlation stimulus; the bins are the index's `binEdgesHz`).
    package var binLevelsDB: [Double]? = nil

    package init(file: String, kind: String, frequency: Double, widthOctaves: Double?, ear: String, duration: Double, level: Double) {
        (self.file, self.kind, self.frequency, self.widthOctaves) = (file, kind, frequency, widthOctaves)
        (self.ear, self.duration, self.level) = (ear, duration, level)
    }
}

/// The `index.json` of a stimulus set: shared parameters and every file.
package struct StimulusIndex: Codable, Sendable {
    package let set: String
    package let generator: String
    package let rate: Double
    package let format: String
    package let level: Double
    package let files: [StimulusFile]
    /// The edges of the frequency bins of a reverse-correlation set, Hz, and their scale (log or mel).
    package var binEdgesHz: [Double]? = nil
    package var binScale: String? = nil
}

/// Folders of stimuli for audiometry and pitch matching, each with an `index.json` describing its files.
package enum StimulusSets {
    /// A file to render and how the index describes it.
    package struct Item: Sendable {
        package let request: RenderRequest
        package let entry: StimulusFile

        package init(request: RenderRequest, entry: StimulusFile) { (self.request, self.entry) = (request, entry) }
    }

    /// Standard audiometric frequencies (ASHA 2005), Hz.
    package static let audiometricFrequencies: [Double] = [125, 250, 500, 1000, 2000, 3000, 4000, 6000, 8000]
    /// Extended high frequencies, Hz.
    package static let extendedHighFrequencies: [Double] = [9000, 10000, 11200, 12500, 14000, 16000]

    /// Pulsed tones at `frequencies` (repeats dropped, order kept) for each ear in `ears` (left, right).
    package static func audiometry(frequencies: [Double], ears: [ChannelLayout], pulses: Pulses, durationSeconds: Double,
                                  levelDBFS: Double, sampleRate: Double) throws(ShadesError) -> [Item] {
        guard !frequencies.isEmpty else {
            throw ShadesError(parameter: .frequencies, value: "''", problem: "is empty", allowed: "one or more frequencies in Hz")
        }
        var items: [Item] = []
        var seen = Set<Double>()
        for f in frequencies where seen.insert(f).inserted {
            for ear in ears {
                let request = RenderRequest(sound: .tone(frequencyHz: f), durationSeconds: durationSeconds, sampleRate: sampleRate,
                                            layout: ear, levelDBFS: levelDBFS, pulses: pulses)
                try request.validate()
                items.append(Item(request: request, entry: StimulusFile(
                    file: "pulsed-tone-\(hertzName(f))-\(ear.rawValue)", kind: "pulsed-tone", frequency: f, widthOctaves: nil,
                    ear: ear.rawValue, duration: Double(request.frameCount) / sampleRate, level: levelDBFS)))
            }
        }
        return items
    }

    /// The quarter-octave (or `stepOctaves`) grid from `fromHz` to `toHz`: for each frequency a pure
    /// tone and a ½-octave narrow-band noise, 1 s with 10 ms raised-cosine ramps, equal RMS.
    package static func pitchMatch(fromHz: Double, toHz: Double, stepOctaves: Double, layout: ChannelLayout,
                                  levelDBFS: Double, sampleRate: Double, seed: UInt64) throws(ShadesError) -> [Item] {
        // The grid's ½-octave bands must lie below Nyquist.
        let centres = ParameterRange.above(0, below: sampleRate / 2 / pow(2, 0.25), unit: .hertz)
        for (id, f) in [(ParameterID.fromFrequency, fromHz), (.toFrequency, toHz)] where !centres.contains(f) {
            throw ShadesError(id, .outOfRange, value: .number(f, .hertz),
                              allowed: AllowedValues(range: centres, note: "(a ½-octave band below Nyquist)"))
        }
        guard toHz >= fromHz else {
            throw ShadesError(parameter: .frequencyRange, value: "\(formatNumber(fromHz)) … \(formatNumber(toHz)) Hz", allowed: "from ≤ to")
        }
        guard stepOctaves.isFinite, stepOctaves > 0, stepOctaves <= 4 else {
            throw ShadesError(parameter: .step, value: "\(stepOctaves)", allowed: "above 0 and up to 4 octaves")
        }
        var grid: [Double] = []
        var k = 0
        while true {
            let f = fromHz * pow(2, Double(k) * stepOctaves)
            if f > toHz * (1 + 1e-9) { break }
            grid.append((f * 1000).rounded() / 1000)
            k += 1
        }
        var items: [Item] = []
        let fades = Fades(inSeconds: 0.01, outSeconds: 0.01)
        for f in grid {
            let sounds: [(Generator, String, Double?)] = [(.tone(frequencyHz: f), "tone", nil),
                                                                  (.narrowBandNoise(centreHz: f, widthOctaves: 0.5), "nbn", 0.5)]
            for (sound, kind, width) in sounds {
                let request = RenderRequest(sound: sound, durationSeconds: 1, sampleRate: sampleRate, layout: layout,
                                            levelDBFS: levelDBFS, seed: seed, fades: fades)
                try request.validate()
                items.append(Item(request: request, entry: StimulusFile(
                    file: "\(kind)-\(hertzName(f))", kind: kind, frequency: f, widthOctaves: width,
                    ear: earName(layout), duration: 1, level: levelDBFS)))
            }
        }
        return items
    }

    /// The octave-confusion triple F/2, F, 2F as 1 s tones with 10 ms ramps (Stein 2016; Henry).
    package static func octaveCheck(frequencyHz: Double, layout: ChannelLayout, levelDBFS: Double,
                                   sampleRate: Double) throws(ShadesError) -> [Item] {
        try [frequencyHz / 2, frequencyHz, frequencyHz * 2].map { (f: Double) throws(ShadesError) -> Item in
            let request = RenderRequest(sound: .tone(frequencyHz: f), durationSeconds: 1, sampleRate: sampleRate, layout: layout,
                                        levelDBFS: levelDBFS, fades: Fades(inSeconds: 0.01, outSeconds: 0.01))
            do throws(ShadesError) { try request.validate() } catch {
                throw ShadesError(parameter: .octaveCheck, value: "\(formatNumber(frequencyHz)) Hz",
                                  problem: "puts F/2 or 2F out of range",
                                  allowed: "F with 2F below Nyquist (\(formatNumber(sampleRate / 2)) Hz)")
            }
            return Item(request: request, entry: StimulusFile(
                file: "octave-check-\(hertzName(f))", kind: "tone", frequency: f, widthOctaves: nil,
                ear: earName(layout), duration: 1, level: levelDBFS))
        }
    }

    /// Residual inhibition (Feldmann 1971; Roberts 2008; Henry 2013): a masker of band noise centred on the
    /// tinnitus frequency, `maskerSeconds` long (60 s: the effect levels off there) at `aboveDB` over a
    /// reference level (the measured threshold or minimum masking level, in dBFS as the app calibrates it;
    /// MML + 10 dB in clinical protocols), with a raised-cosine onset ramp and an abrupt (0) or short
    /// offset ramp, then `silenceSeconds` of digital silence in which the residual inhibition is rated. The
    /// minimum-masking-level probes are the same band noise, `probeSeconds` long with the same ramps, from
    /// `probeFromDB` to `probeToDB` re the reference in steps of `probeStepDB` (1 or 2 dB).
    package static func residualInhibition(frequencyHz: Double, widthOctaves: Double, referenceDBFS: Double, aboveDB: Double,
                                          maskerSeconds: Double, silenceSeconds: Double, onsetRampSeconds: Double,
                                          offsetRampSeconds: Double, probeFromDB: Double, probeToDB: Double, probeStepDB: Double,
                                          probeSeconds: Double, layout: ChannelLayout, sampleRate: Double,
                                          seed: UInt64) throws(ShadesError) -> [Item] {
        guard probeStepDB == 1 || probeStepDB == 2 else {
            throw ShadesError(parameter: .mmlStep, value: "\(formatNumber(probeStepDB)) dB", allowed: "1 or 2 dB")
        }
        guard probeFromDB.isFinite, probeToDB.isFinite, probeFromDB <= probeToDB, probeToDB - probeFromDB <= 60 else {
            throw ShadesError(parameter: .mmlRange, value: "\(formatNumber(probeFromDB)) … \(formatNumber(probeToDB)) dB",
                              allowed: "from ≤ to, at most 60 dB apart")
        }
        guard silenceSeconds.isFinite, silenceSeconds >= 0, silenceSeconds <= 600 else {
            throw ShadesError(parameter: .silence, value: "\(formatNumber(silenceSeconds)) s", allowed: "0 … 600 s")
        }
        // Each value under its own name before the sounds are checked (which would name a duration or a fade).
        let lengths = Parameter.duration.range!
        try Parameter(.masker, unit: .seconds, range: lengths).check(maskerSeconds)
        try Parameter(.probe, unit: .seconds, range: lengths).check(probeSeconds)
        let ramps = ParameterRange(0...min(maskerSeconds, probeSeconds), unit: .seconds)
        try Parameter(.onsetRamp, unit: .seconds).check(onsetRampSeconds, within: ramps, note: "(the masker and the probes)")
        try Parameter(.offsetRamp, unit: .seconds).check(offsetRampSeconds, within: ramps, note: "(the masker and the probes)")
        // The reference, the masker and the probes: levels from the lowest to 0 dBFS.
        let levels = ParameterRange(LevelPolicy.lowestRMSLevelDBFS...0, unit: .dBFS)
        try Parameter(.reference, unit: .dBFS).check(referenceDBFS, within: levels)
        let relativeLevels = ParameterRange(levels.lower!.value - referenceDBFS...(-referenceDBFS), unit: .decibels)
        let over = "(re the reference, \(formatNumber(referenceDBFS)) dBFS: levels \(levels))"
        try Parameter(.above, unit: .decibels).check(aboveDB, within: relativeLevels, note: over)
        try Parameter(.probeFrom, unit: .decibels).check(probeFromDB, within: relativeLevels, note: over)
        try Parameter(.probeTo, unit: .decibels).check(probeToDB, within: relativeLevels, note: over)
        // The ramps frame every file: the masker's sound and each probe.
        let shortest = min(maskerSeconds, probeSeconds)
        if onsetRampSeconds.isFinite, offsetRampSeconds.isFinite, shortest.isFinite, onsetRampSeconds + offsetRampSeconds > shortest {
            throw ShadesError(.fade, .other("do not fit in the \(formatNumber(shortest * 1000)) ms \(probeSeconds < maskerSeconds ? "probe" : "masker")"),
                              value: .text("\(formatNumber(onsetRampSeconds * 1000)) ms + \(formatNumber(offsetRampSeconds * 1000)) ms"),
                              allowed: AllowedValues(note: "together at most the shorter of the masker and the probe"))
        }
        let band = Generator.narrowBandNoise(centreHz: frequencyHz, widthOctaves: widthOctaves)
        func item(_ name: String, kind: String, seconds: Double, silence: Double, relative: Double) throws(ShadesError) -> Item {
            let level = referenceDBFS + relative
            let request = RenderRequest(sound: band, durationSeconds: seconds + silence, sampleRate: sampleRate, layout: layout,
                                        levelDBFS: level, seed: seed,
                                        fades: Fades(inSeconds: onsetRampSeconds, outSeconds: offsetRampSeconds,
                                                     endSeconds: silence > 0 ? seconds : nil))
            try request.validate()
            var entry = StimulusFile(file: name, kind: kind, frequency: frequencyHz, widthOctaves: widthOctaves, ear: earName(layout),
                                     duration: Double(request.frameCount) / sampleRate, level: level)
            entry.soundSeconds = silence > 0 ? seconds : nil
            entry.relativeLevel = relative
            return Item(request: request, entry: entry)
        }
        var items = [try item("ri-masker-\(hertzName(frequencyHz))", kind: "ri-masker", seconds: maskerSeconds,
                              silence: silenceSeconds, relative: aboveDB)]
        var relative = probeFromDB
        while relative <= probeToDB + 1e-9 {
            items.append(try item("mml-probe-\(hertzName(frequencyHz))-at\(relative >= 0 ? "+" : "")\(formatNumber(relative))dB", kind: "mml-probe",
                                  seconds: probeSeconds, silence: 0, relative: relative))
            relative += probeStepDB
        }
        return items
    }

    /// The sample format of a set: `asked` when it carries every file's level, else a refusal naming the
    /// quietest file; without `asked`, the first of s16, s24 and f32 (f32 in WAV only) that carries every
    /// level (``LevelPolicy/lowestLevelDBFS(_:)``), with the reason when it is not s16 ("its quietest
    /// file, mml-probe-6000Hz-at-10dB at -70 dBFS, is below what s16 carries").
    package static func sampleFormat(for items: [Item], asked: SampleFormat?,
                                     container: Container) throws(ShadesError) -> (format: SampleFormat, reason: String?) {
        guard let quietest = items.min(by: { $0.request.levelDBFS < $1.request.levelDBFS }) else { return (asked ?? .s16, nil) }
        let level = quietest.request.levelDBFS
        let file = "\(quietest.entry.file) at \(formatNumber(level)) dBFS"
        if let asked {
            guard level < LevelPolicy.lowestLevelDBFS(asked) else { return (asked, nil) }
            let fits = SampleFormat.allCases.first { level >= LevelPolicy.lowestLevelDBFS($0) && (container == .wav || $0 != .f32) }
            throw ShadesError(.sampleFormat, .other("cannot carry the set's quietest file, \(file)"), value: .text(asked.rawValue),
                              allowed: AllowedValues(note: fits.map { "\($0.rawValue), or leave it out to choose it" }
                                                     ?? "f32 in WAV (FLAC has no float samples)"))
        }
        for format in SampleFormat.allCases where container == .wav || format != .f32 {
            if level >= LevelPolicy.lowestLevelDBFS(format) {
                return (format, format == .s16 ? nil : "its quietest file, \(file), is below what s16 carries")
            }
        }
        throw ShadesError(.sampleFormat, .other("cannot carry the set's quietest file, \(file), in \(container.rawValue)"),
                          allowed: AllowedValues(note: "f32 in WAV, down to -150 dBFS"))
    }

    /// Renders `items` into `folder` (created if missing) with an `index.json`. Everything is written into
    /// a temporary folder first and moved into place in one uninterrupted step, so a failure or an
    /// interrupt (``InterruptCleanup``: the staging folder and any folder made for it are removed) leaves
    /// the folder as it was.
    package static func write(_ items: [Item], set: String, to folder: String, sampleFormat: SampleFormat,
                             container: Container, bins: (edgesHz: [Double], scale: String)? = nil) throws(ShadesError) -> StimulusIndex {
        let manager = FileManager.default
        var info = stat()
        if stat(folder, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            throw .runtime("cannot write into \(folder): it is a file")
        }
        let previousFiles = try filesOfPreviousSet(in: folder)
        let name = folder.split(separator: "/").last.map(String.init) ?? folder
        let staging = AtomicFile.directory(of: folder) + "/.\(name).\(getpid()).tmp"
        try? manager.removeItem(atPath: staging)
        // The folders above the staging folder that do not exist yet (`-o new/set`), made and registered.
        var created = try FolderCreation.create(FolderCreation.missingFolders(for: folder, isFolder: true))
        do {
            try InterruptCleanup.uninterrupted {
                try manager.createDirectory(atPath: staging, withIntermediateDirectories: false)
                InterruptCleanup.register(staging, .tree)
            }
        } catch {
            FolderCreation.remove(created)
            throw .runtime("cannot create the output folder \(folder): \(fileSystemReason(error))")
        }
        defer {
            try? manager.removeItem(atPath: staging)
            InterruptCleanup.forget(staging)
            FolderCreation.remove(created)   // only what is still empty: nothing once the set is in place
        }
        var entries: [StimulusFile] = []
        for item in items {
            let name = "\(item.entry.file).\(container.rawValue)"
            try Renderer.renderFile(item.request, to: "\(staging)/\(name)", sampleFormat: sampleFormat)
            let e = item.entry
            var entry = StimulusFile(file: name, kind: e.kind, frequency: e.frequency, widthOctaves: e.widthOctaves,
                                     ear: e.ear, duration: e.duration, level: e.level)
            (entry.soundSeconds, entry.relativeLevel, entry.quality, entry.sound) = (e.soundSeconds, e.relativeLevel, e.quality, e.sound)
            entry.binLevelsDB = e.binLevelsDB
            entries.append(entry)
        }
        let first = items.first?.request
        var index = StimulusIndex(set: set, generator: AudioFileWriter.software, rate: first?.sampleRate ?? 0,
                                  format: "\(container.rawValue) \(sampleFormat.rawValue)", level: first?.levelDBFS ?? 0, files: entries)
        (index.binEdgesHz, index.binScale) = (bins?.edgesHz, bins?.scale)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(index).write(to: URL(fileURLWithPath: "\(staging)/index.json"))
            // One step for an interrupt: the set is moved in whole, or not at all.
            try InterruptCleanup.uninterrupted {
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let names = entries.map(\.file) + ["index.json"]
                // The set replaces the one the folder held: its files that this set does not have go too.
                for name in previousFiles where !names.contains(name) { try manager.removeItem(atPath: "\(folder)/\(name)") }
                for name in names {
                    let target = "\(folder)/\(name)"
                    if manager.fileExists(atPath: target) { try manager.removeItem(atPath: target) }
                    try manager.moveItem(atPath: "\(staging)/\(name)", toPath: target)
                }
                FolderCreation.keep(created)
                created = []
            }
        } catch {
            throw .runtime("cannot write into \(folder): \(fileSystemReason(error))")
        }
        return index
    }

    /// The files of the set that `folder` holds (those its index.json lists, and index.json), [] for a new or
    /// empty folder. A folder holding anything else (hidden files aside) is refused: a set replaces only a set.
    static func filesOfPreviousSet(in folder: String) throws(ShadesError) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder).filter({ !$0.hasPrefix(".") }), !names.isEmpty else { return [] }
        let listed = manager.contents(atPath: "\(folder)/index.json")
            .flatMap { try? JSONDecoder().decode(StimulusIndex.self, from: $0) }
            .map { Set($0.files.map(\.file) + ["index.json"]) }
        let allowed = "allowed: a new or empty folder, or a set `shades stimuli` wrote"
        guard let listed else { throw .usage("-o \(folder) holds files but no index.json of a stimulus set (\(allowed))") }
        if let stranger = names.sorted().first(where: { !listed.contains($0) }) {
            throw .usage("-o \(folder): \(stranger) is not a file of the set it holds (\(allowed))")
        }
        return names
    }

    /// "1000Hz", "1189.21Hz", "6349.6Hz": to 0.01 Hz (a quarter-octave grid's names stay apart).
    static func hertzName(_ f: Double) -> String { formatNumber(f, roundedTo: 2) + "Hz" }

    static func earName(_ layout: ChannelLayout) -> String {
        switch layout {
        case .left: return "left"
        case .right: return "right"
        default: return "both"
        }
    }
}

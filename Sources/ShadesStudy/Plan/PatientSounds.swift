#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesPlatform
import ShadesRender

/// One of a patient's sounds: an arm's sound with the patient's values put in, before its level is resolved.
public struct PatientSound: Sendable {
    /// The arm's sound it comes from (for an arm that is a sham: its twin's sound).
    public var armSound: String
    /// The song, for a sound of the patient's music (its file name in the music folder).
    public var song: String?
    public var sound: Sound
    /// Length, seconds; ``RenderRequest/untilEndOfFile`` for a song.
    public var durationSeconds: Double
    public var loop: Bool
    public var level: PatientLevel
    /// For a sham: its active twin (the sham is rendered at the twin's loudness, the twin at its level).
    public var twin: Sound?
    /// True when it is the sham of its arm's twin.
    public var isSham: Bool { twin != nil }
}

extension StudyProtocol {
    /// The sounds of `arm` for `patient`: each arm sound with `"{tinnitusHz}"` replaced by the patient's
    /// frequency and `"{music}"` by each song of the patient's music folder (sorted by name; hidden files and
    /// covers, playlists and notes skipped: ``isCompanionFile(_:)``). Ears with different tinnitus frequencies
    /// get a notch each (a notch of one ear), or, for any other use of the frequency, a stereo mix of the two
    /// ears' sounds. A sham arm has its twin's sounds' shams (``Sound/shamTwin()``).
    public func sounds(of arm: String, for patient: Patient) throws(ShadesError) -> [PatientSound] {
        guard let index = arms.firstIndex(where: { $0.name == arm }) else {
            throw ShadesError.input("patient \(patient.id): arm '\(arm)' is not one of the protocol's")
        }
        let twin = arms[index].shamOf
        let active = twin.flatMap { name in arms.first { $0.name == name } } ?? arms[index]
        var sounds: [PatientSound] = []
        for armSound in active.sounds {
            let songs: [String?] = armSound.isMusic ? try Self.songs(of: patient).map { Optional($0) } : [nil]
            for song in songs {
                let sound = try resolved(armSound, song: song.map { patient.musicFolder! + "/" + $0 }, tinnitus: patient.tinnitusHz)
                var sham: Sound?
                if twin != nil {
                    do throws(ShadesError) { sham = try sound.shamTwin() } catch { throw error.within("patient \(patient.id), sound \(armSound.name)") }
                }
                sounds.append(PatientSound(armSound: armSound.name, song: song, sound: sham ?? sound,
                                           durationSeconds: armSound.durationSeconds ?? RenderRequest.untilEndOfFile,
                                           loop: armSound.loop, level: armSound.level, twin: sham == nil ? nil : sound))
            }
        }
        return sounds
    }

    /// The song files of the patient's music folder, sorted; refused when there is none.
    static func songs(of patient: Patient) throws(ShadesError) -> [String] {
        guard let folder = patient.musicFolder else {
            throw ShadesError.input("patient \(patient.id): no music folder (allowed: a folder of the patient's songs in the column music)")
        }
        let names: [String]
        do throws(ShadesError) { names = try FileSystem.entries(inFolder: folder) } catch {
            let reason = error.code == ENOTDIR || error.code == ENOENT ? FolderCreation.notAFolder(folder) : error.reason
            throw ShadesError.input("patient \(patient.id): music folder \(folder) cannot be read: \(reason) (allowed: a folder of the patient's songs)")
        }
        let songs = names.filter { !$0.hasPrefix(".") && !isCompanionFile($0) }.sorted()
        guard !songs.isEmpty else { throw ShadesError.input("patient \(patient.id): music folder \(folder) is empty (allowed: one or more songs)") }
        return songs
    }

    /// What a music folder holds beside its songs, left out: cover images, playlists, cue sheets, notes and
    /// the thumbnails a file manager writes. Any other file is a song, refused at planning if it cannot be read.
    static func isCompanionFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        if lower == "thumbs.db" || lower == "desktop.ini" { return true }
        guard let dot = lower.lastIndex(of: ".") else { return false }
        return companionExtensions.contains(String(lower[lower.index(after: dot)...]))
    }

    private static let companionExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "bmp", "webp", "txt", "nfo", "pdf",
                                                           "m3u", "m3u8", "pls", "cue", "log", "url", "sfv", "md5"]

    /// The sound of `armSound` with the patient's values in it.
    func resolved(_ armSound: StudySound, song: String?, tinnitus: EarFrequencies) throws(ShadesError) -> Sound {
        var template = armSound.template
        if let song { template = template.replacing(string: StudyPlaceholder.music, with: .string(song)) }
        func sound(_ hertz: Double) throws(ShadesError) -> Sound {
            let value = template.replacing(string: StudyPlaceholder.tinnitusHz, with: .number(hertz, formatNumber(hertz)))
            return try SoundReader(reader: JSONTreeReader(file: path)).sound(value, path: armSound.path)
        }
        let left = tinnitus.leftHz ?? tinnitus.rightHz!, right = tinnitus.rightHz ?? left
        let leftSound = try sound(left)
        guard left != right, armSound.template.contains(string: StudyPlaceholder.tinnitusHz) else { return leftSound }
        let rightSound = try sound(right)
        // Only the notches differ: one notch per ear over the one sound.
        var leftWithout = leftSound, rightWithout = rightSound
        (leftWithout.notches, rightWithout.notches) = (nil, nil)
        if leftWithout == rightWithout {
            var both = leftSound
            both.notches = (leftSound.notches ?? []).map { var n = $0; n.ears = .left; return n }
                + (rightSound.notches ?? []).map { var n = $0; n.ears = .right; return n }
            both.channels = .stereo
            return both
        }
        return Sound.mix([Layer(leftSound, ears: .left), Layer(rightSound, ears: .right)], channels: .stereo)
    }
}

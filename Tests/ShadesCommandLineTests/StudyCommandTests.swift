import Testing
import Foundation
import Synchronization
import ShadesTestSupport
import ShadesRender
import ShadesStudy

/// `shades study` on the repository's example protocol, from docs/studies.md's commands: a cohort of 40 patients
/// (audiograms and MMLs from the procedures' simulated listeners, songs cut from the tests' real music)
/// planned byte-identically, built, checked (levels at the ear, twins' loudness, blinding); a changed level
/// and an unblinding word found; bad patients refused before a plan is written.
@Suite(.serialized) struct StudyCommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// Presets/studies/example-study.json in the package.
    static let example = packageRoot + "/Presets/studies/example-study.json"
    /// The real music of the tests (`make test-deps`).
    static let musicFixtures = packageRoot + "/.build-fixtures/music"

    /// A cohort of `count` patients at two sites in `folder`: audiograms (mild loss) and MMLs (at each patient's
    /// tinnitus frequency) from the simulated listeners, and a music folder with one song (20 s of a real song; `realSongs`: cut from
    /// the tests' music, else 2 s of modulated pink noise); every fifth patient with a tinnitus per ear.
    func makeCohort(_ count: Int, in folder: String, realSongs: Bool = false) throws {
        var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
        for sub in ["a", "m"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        let songs = realSongs ? try FileManager.default.contentsOfDirectory(atPath: Self.musicFixtures).filter { !$0.hasPrefix(".") }.sorted() : []
        if realSongs { try #require(songs.count >= 4, "the tests' music (make test-deps)") }
        for i in 1...count {
            let audiogram = try Shell.run(["audiometry", "--simulate-audiogram", "250:5,500:5,1000:10,2000:10,4000:15,8000:20",
                                           "--seed", "\(i)", "-o", "a/P\(i).json"], in: folder)
            try #require(audiogram.status == 0, "\(audiogram.stderr)")
            // The MML measured at the patient's tinnitus frequency (the plan refuses one whose band misses it).
            let tinnitus = i % 5 == 0 ? "left=6000 right=7000" : "\(4000 + 250 * (i % 9))"
            let mml = try Shell.run(["mml", "--frequency", i % 5 == 0 ? "6000" : tinnitus, "--threshold", "-\(70 + i % 7)", "--simulate", "20dB",
                                     "-o", "m/P\(i).json"], in: folder)
            try #require(mml.status == 0, "\(mml.stderr)")
            try FileManager.default.createDirectory(atPath: folder + "/songs/P\(i)", withIntermediateDirectories: true)
            let song = realSongs
                ? try Shell.run(["render", Self.musicFixtures + "/" + songs[i % songs.count], "--duration", "20s", "-o", "songs/P\(i)/song.flac"], in: folder)
                : try Shell.run(["render", "pink", "--duration", "2s", "--am", "0.5", "-o", "songs/P\(i)/song.flac"], in: folder)
            try #require(song.status == 0, "\(song.stderr)")
            csv += "P\(i),\(i % 2 == 0 ? "Ulm" : "Regensburg"),,\(tinnitus),a/P\(i).json,m/P\(i).json,songs/P\(i)\n"
        }
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
    }

    /// The `shades study …` lines of docs/studies.md's Studies section (before its "On a cluster"), without "shades".
    static func readmeCommands() throws -> [[String]] {
        let readme = try String(contentsOfFile: packageRoot + "/docs/studies.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Studies\n").dropFirst().first?.components(separatedBy: "\n## ").first?.components(separatedBy: "\n### ").first)
        return section.split(separator: "\n").filter { $0.hasPrefix("shades study ") }.map { $0.split(separator: " ").dropFirst().map(String.init) }
    }

    /// Hashing the plan's inputs opened a FIFO as the patients' CSV and waited for a writer for ever.
    @Test func aFIFOAsThePatientsIsRefusedWithoutWaiting() throws {
        let folder = temporaryFolder("study-fifo")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo("\(folder)/patients.csv", 0o644) == 0)
        let result = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        #expect(result.status == 1 && result.stderr == "shades: error: patients' CSV: patients.csv is a named pipe (FIFO), not a file\n",
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/study"))
    }

    @Test func theExampleStudyPlansBuildsAndChecksFromTheReadme() throws {
        let folder = temporaryFolder("study-example")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(40, in: folder, realSongs: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/Presets", withDestinationPath: Self.packageRoot + "/Presets")
        let commands = try Self.readmeCommands()
        try #require(commands.map { Array($0.prefix(2)) } == [["study", "plan"], ["study", "build"], ["study", "check"]], "\(commands)")

        // Plan: the same bytes for the same inputs.
        let plan = try Shell.run(commands[0], in: folder)
        try #require(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.hasPrefix("planned 40 patients ("), "\(plan.stdout)")
        let again = try Shell.run(["study", "plan", "Presets/studies/example-study.json", "patients.csv", "-o", "again"], in: folder)
        try #require(again.status == 0, "\(again.stderr)")
        for file in ["plan/study.json", "plan/patients.jsonl", "key/allocation.csv"] {
            #expect(FileManager.default.contents(atPath: folder + "/again/" + file) == FileManager.default.contents(atPath: folder + "/study/" + file),
                    "the same inputs give the same \(file)")
        }
        let study = StudyFolder(folder + "/study")
        var patients: [StudyPlan.PatientPlan] = []
        try StudyPlan.forEachPatient(study) { patients.append($0) }
        #expect(patients.count == 40 && Set(patients.map(\.arm)).count == 6, "every arm is allocated")
        for patient in patients {
            #expect(!patient.sounds.isEmpty && patient.sounds.allSatisfy { $0.code.count == 8 && $0.sham == patient.arm.hasSuffix("-sham") }, "\(patient.id)")
            // Every level but loudness (measured when built) is resolved to dB SPL under the ceiling when planned.
            #expect(patient.sounds.allSatisfy { ($0.levelDBSPL ?? 0) <= 85 && ($0.levelDBSPL == nil) == ($0.level.scaleName == "LUFS") },
                    "\(patient.id)")
        }

        // Build: one shard first (status: a third done), then the README's build builds the rest and skips
        // the shard's patients; again: every patient skipped.
        let notYet = try Shell.run(["study", "status", "study"], in: folder)
        #expect(notYet.status == 1 && notYet.stdout.hasSuffix("0 of 40 patients done, 0 failed, 40 not yet built\n"), "\(notYet.stdout)")
        let shard = try Shell.run(["study", "build", "study", "--shard", "1/3"], in: folder)
        try #require(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
        let first = Set(shard.stdout.split(separator: "\n").filter { $0.contains(" built in ") }.map { String($0.prefix { $0 != " " }) })
        #expect(first == Set(patients.enumerated().filter { $0.offset % 3 == 1 }.map(\.element.id)), "shard 1/3: places 1, 4, 7 …")
        let partly = try Shell.run(["study", "status", "study"], in: folder)
        #expect(partly.status == 1 && partly.stdout.hasSuffix("\(first.count) of 40 patients done, 0 failed, \(40 - first.count) not yet built\n"), "\(partly.stdout)")
        let build = try Shell.run(commands[1], in: folder)
        try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
        let rest = Set(build.stdout.split(separator: "\n").filter { $0.contains(" built in ") }.map { String($0.prefix { $0 != " " }) })
        #expect(rest.count == 40 - first.count && rest.isDisjoint(with: first), "no patient is built twice: \(build.stdout)")
        let rebuild = try Shell.run(commands[1], in: folder)
        #expect(rebuild.status == 0 && rebuild.stdout.split(separator: "\n").filter { $0.hasSuffix("skipped: already built") }.count == 40)
        let done = try Shell.run(["study", "status", "study"], in: folder)
        #expect(done.status == 0 && done.stdout.hasSuffix("40 of 40 patients done, 0 failed, 0 not yet built\n"), "\(done.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/study/patients").flatMap { shard in
            try FileManager.default.contentsOfDirectory(atPath: folder + "/study/patients/" + shard)
        }
        #expect(names.sorted() == patients.map(\.id).sorted(), "nothing but the patients' folders (no building folder left)")

        // Check: levels at the ear within 0.1 dB, twins within 0.1 LU, blinding.
        let check = try Shell.run(commands[2], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == "checked 40 patients: every file, level, twin and folder matches the plan\n", "\(check.stdout)")
        try expectBlinded(patients, in: study)

        // A file 0.2 dB off its level, and a manifest naming its sham, are each found and named.
        let active = try #require(patients.first { !$0.arm.hasSuffix("-sham") && $0.sounds[0].song == nil })
        let key = try JSONDecoder().decode(PatientKey.self, from: Data(contentsOf: URL(fileURLWithPath: study.keyPath(of: active.id))))
        var louder = key.sounds[0].request
        if case .rms(let level) = louder.level { louder.level = .rms(dBFS: level + 0.2) }
        let path = study.patientFolder(of: active.id) + "/" + key.sounds[0].code + ".flac"
        try FileManager.default.removeItem(atPath: path)
        _ = try Renderer.renderFile(louder, to: path, sampleFormat: .s24)
        let sham = try #require(patients.first { $0.arm.hasSuffix("-sham") })
        let manifestPath = study.patientFolder(of: sham.id) + "/manifest.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        try manifest.replacingOccurrences(of: "\"loop\"", with: "\"sham\" : true, \"loop\"").write(toFile: manifestPath, atomically: true, encoding: .utf8)
        let tampered = try Shell.run(commands[2], in: folder)
        #expect(tampered.status == 1)
        #expect(tampered.stderr.contains("patient \(active.id): \(key.sounds[0].code).flac: level ") && tampered.stderr.contains("is not within 0.1 dB of the planned"),
                "\(tampered.stderr)")
        #expect(tampered.stderr.contains("patient \(sham.id): manifest.json holds 'sham'"), "\(tampered.stderr)")
    }

    /// Reads every byte of every patient's folder: the file names are codes, the manifests have the same keys
    /// in every arm, and no word of any text or file metadata (everything but the audio frames) names an
    /// arm, an arm's sound, a song, "sham" or the patient's frequency.
    func expectBlinded(_ patients: [StudyPlan.PatientPlan], in study: StudyFolder) throws {
        var words = BlindingScan.Words()
        for patient in patients { words.add(patient) }
        #expect(words.words.isSuperset(of: ["sham", "ripple", "am", "pink"]), "\(words.words)")
        var keySets = Set<[String]>()
        for patient in patients {
            let folder = study.patientFolder(of: patient.id)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(names == (patient.sounds.map { $0.code + ".flac" } + ["manifest.json"]).sorted(), "\(patient.id): \(names)")
            for name in names {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                let found = name.hasSuffix(".flac") ? try BlindingScan.unblindingWords(inFile: folder + "/" + name, words: words, patient: patient)
                                                    : BlindingScan.unblindingWords(inText: bytes, words: words, patient: patient)
                #expect(found.isEmpty, "\(patient.id)/\(name) holds \(found)")
                if name == "manifest.json" {
                    let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                    let sounds = try #require(json["sounds"] as? [[String: Any]])
                    keySets.insert(json.keys.sorted() + sounds.flatMap { $0.keys.sorted() }.uniqued())
                }
            }
        }
        #expect(keySets.count == 1, "every patient's manifest has the same keys: \(keySets)")
    }

    /// Builds given the same patient at once (a requeued task overlapping the first), three at a time, three
    /// times: one puts the folder in place, the others find it built; nothing is left but the patient's folder,
    /// and it checks. (A build once removed a live build's folder as a leftover, and that build then swapped
    /// its emptied folder in: both said "built" and the manifest was gone.)
    @Test func twoBuildsOfOnePatientNeverMix() throws {
        let folder = temporaryFolder("study-race")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(2, in: folder)
        let csv = try String(contentsOfFile: folder + "/patients.csv", encoding: .utf8).replacingOccurrences(of: "Regensburg,,", with: "Regensburg,am-noise-sham,")
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
        let plan = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(plan.status == 0, "\(plan.stderr)")
        let shard = folder + "/study/patients/" + StudyFolder.shard(of: "P1")
        for round in 0..<3 {
            try? FileManager.default.removeItem(atPath: shard + "/P1")
            let results = Mutex<[(status: Int32, stdout: String, stderr: String)]>([])
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                if let run = try? Shell.run(["study", "build", "study", "--patient", "P1"], in: folder) { results.withLock { $0.append(run) } }
            }
            let outputs = results.withLock { $0 }
            try #require(outputs.count == 3 && outputs.allSatisfy { $0.status == 0 }, "round \(round): \(outputs)")
            let lines = outputs.map(\.stdout).joined()
            #expect(lines.components(separatedBy: "P1 built in ").count == 2, "round \(round): built once: \(lines)")
            #expect(lines.components(separatedBy: "P1 skipped: ").count == 3, "round \(round): \(lines)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: shard) == ["P1"], "round \(round): no building folder is left")
            let check = try Shell.run(["study", "check", "study", "--patient", "P1"], in: folder)
            #expect(check.status == 0, "round \(round): \(check.stderr)")
        }

        // Leftovers: a dead builder's folder on this host goes; a live builder's (this test process) and another
        // host's recent one stay (that host's builder may be running).
        let host = ProcessInfo.processInfo.hostName.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let dead = ".P1.build-\(host)-\(try KillRun.goneProcessID())", live = ".P1.build-\(host)-\(getpid())", other = ".P1.build-node0042-17"
        for name in [dead, live, other] { try FileManager.default.createDirectory(atPath: shard + "/" + name, withIntermediateDirectories: true) }
        try FileManager.default.removeItem(atPath: shard + "/P1")
        let build = try Shell.run(["study", "build", "study", "--patient", "P1"], in: folder)
        #expect(build.status == 0 && build.stdout.contains("P1 built in "), "\(build.stdout)\(build.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard).sorted() == [live, other, "P1"].sorted())
    }

    /// SIGTERM during a build (what `scancel` and a time limit send) ends it with exit status 1, "worth
    /// retrying", and leaves only whole patients, no building folder; the next build completes and checks.
    @Test func aTerminatedBuildExitsOneAndLeavesOnlyWholePatients() throws {
        let folder = temporaryFolder("study-sigterm")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(3, in: folder)
        let plan = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(plan.status == 0, "\(plan.stderr)")
        let patients = folder + "/study/patients"
        var terminated = false
        // A patient takes about a second; a signal that comes after the last one finds the build ended (0).
        for delay in [1.5, 0.7, 0.3, 0.1] where !terminated {
            try? FileManager.default.removeItem(atPath: patients)
            let run = try KillRun.run(["study", "build", "study", "--jobs", "1"], in: folder, signal: SIGTERM, after: delay)
            guard run.exited, run.status != 0 else { continue }
            #expect(run.status == 1, "SIGTERM after \(delay) s: exit \(run.status) (\(run.exited ? "exited" : "signalled"))")
            terminated = true
        }
        try #require(terminated, "no build was still running when terminated")
        let left = (try? FileManager.default.subpathsOfDirectory(atPath: patients)) ?? []
        #expect(left.allSatisfy { !$0.split(separator: "/").contains { $0.hasPrefix(".") } }, "a building folder is left: \(left)")
        let rebuild = try Shell.run(["study", "build", "study"], in: folder)
        #expect(rebuild.status == 0, "\(rebuild.stdout)\(rebuild.stderr)")
        let check = try Shell.run(["study", "check", "study"], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
    }

    /// `study slurm` writes the bundle's launcher into the job script when SHADES_EXECUTABLE names one (under the
    /// bundle's own loader /proc/self/exe names the loader), by its real path; a relative path is not taken.
    @Test func theJobScriptRunsTheBundlesLauncher() throws {
        let folder = temporaryFolder("study-launcher")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(2, in: folder)
        let plan = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(plan.status == 0, "\(plan.stderr)")
        try FileManager.default.createDirectory(atPath: folder + "/bundle/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "bundle")
        let launcher = folder + "/bundle/bin/shades"
        try "#!/bin/sh\n".write(toFile: launcher, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: launcher)
        let real = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        for (variable, expected) in [(folder + "/link/bin/../bin/shades", real(launcher)), ("link/bin/shades", real(Shell.executable))] {
            let slurm = try Shell.run(["study", "slurm", "study", "--tasks", "2"], in: folder, environment: ["SHADES_EXECUTABLE": variable])
            try #require(slurm.status == 0, "\(slurm.stderr)")
            let text = try String(contentsOfFile: folder + "/study/slurm/build.sbatch", encoding: .utf8)
            #expect(text.contains("\nexec '\(expected)' study build "), "SHADES_EXECUTABLE=\(variable): \(text)")
        }
    }

    @Test func refusesEveryBadPatientBeforeWritingAPlan() throws {
        let folder = temporaryFolder("study-refusals")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(2, in: folder)
        let csv = """
            id,site,arm,tinnitusHz,audiogram,mml,music
            P1,Ulm,am-noise,6000,a/P1.json,m/P1.json,songs/P1
            P2,Ulm,ripple,30000,a/P2.json,m/P2.json,songs/P2
            P3,Ulm,am-noise,6000,a/missing.json,m/P1.json,songs/P1
            P4,Ulm,placebo,6000,a/P1.json,m/P1.json,songs/P1
            P1,Ulm,am-noise,6000,a/P1.json,m/P1.json,songs/P1
            P6,Ulm,ripple,12000,a/P1.json,m/P1.json,songs/P1

            """
        try csv.write(toFile: folder + "/bad.csv", atomically: true, encoding: .utf8)
        let run = try Shell.run(["study", "plan", Self.example, "bad.csv", "-o", "study"], in: folder)
        #expect(run.status != 0)
        #expect(!FileManager.default.fileExists(atPath: folder + "/study"), "no plan is written")
        // The table's problems first (every row at once), then, on a readable table, every patient's.
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].contains("bad.csv:5: patient P4: arm 'placebo'") && lines[1].contains("bad.csv:6: patient P1: id P1 is repeated"),
                "\(run.stderr)")
        let fixed = csv.replacingOccurrences(of: "P4,Ulm,placebo", with: "P4,Ulm,ripple").replacingOccurrences(of: "\nP1,Ulm,am-noise,6000,a/P1.json,m/P1.json,songs/P1\nP6", with: "\nP6")
        try fixed.write(toFile: folder + "/bad.csv", atomically: true, encoding: .utf8)
        let again = try Shell.run(["study", "plan", Self.example, "bad.csv", "-o", "study"], in: folder)
        let patients = again.stderr.split(separator: "\n").map(String.init)
        #expect(again.status != 0 && !FileManager.default.fileExists(atPath: folder + "/study"))
        #expect(patients.count == 3, "\(again.stderr)")
        #expect(patients.contains { $0.contains("patient P2") && $0.contains("30000") }, "\(again.stderr)")
        #expect(patients.contains { $0.contains("patient P3") && $0.contains("missing.json") }, "\(again.stderr)")
        #expect(patients.contains { $0.contains("patient P6") && $0.contains("12000") }, "\(again.stderr)")
    }

    /// A study folder keeps its allocation: a new plan may add patients after the planned ones of their site,
    /// but one that would give a planned patient another arm (a patient inserted above them) is refused, the
    /// key untouched; no file the plan writes may be an input, nor the folder a patient's music folder.
    @Test func aPlanKeepsThePlannedArmsAndNeverWritesOverItsInputs() throws {
        let folder = temporaryFolder("study-replan")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(8, in: folder)
        let first = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(first.status == 0, "\(first.stderr)")
        let keyPath = folder + "/study/key/allocation.csv"
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        var rows = try String(contentsOfFile: folder + "/patients.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        let newPatient = rows[1].replacingOccurrences(of: "P1,", with: "N1,")

        // Appended: the planned patients keep their arms, the key gains a line.
        try (rows + [newPatient]).joined(separator: "\n").appending("\n").write(toFile: folder + "/more.csv", atomically: true, encoding: .utf8)
        let appended = try Shell.run(["study", "plan", Self.example, "more.csv", "-o", "study"], in: folder)
        #expect(appended.status == 0, "\(appended.stderr)")
        let longer = try String(contentsOfFile: keyPath, encoding: .utf8)
        #expect(longer.hasPrefix(key) && longer.split(separator: "\n").count == key.split(separator: "\n").count + 1, "\(longer)")

        // Inserted above the site's planned patients: refused, a line per patient whose arm would change.
        rows.insert(newPatient, at: 1)
        try rows.joined(separator: "\n").appending("\n").write(toFile: folder + "/inserted.csv", atomically: true, encoding: .utf8)
        let inserted = try Shell.run(["study", "plan", Self.example, "inserted.csv", "-o", "study"], in: folder)
        #expect(inserted.status == 2, "\(inserted.stderr)")
        #expect(inserted.stderr.hasPrefix("shades: error: -o study: patient ") && inserted.stderr.contains(" would change arm from "), "\(inserted.stderr)")
        #expect(try String(contentsOfFile: keyPath, encoding: .utf8) == longer, "the key is untouched")

        // A patient left out is refused; with the key moved away (kept apart), the plan's arms are kept.
        try (rows.filter { !$0.hasPrefix("P8,") }).joined(separator: "\n").appending("\n").write(toFile: folder + "/fewer.csv", atomically: true, encoding: .utf8)
        let fewer = try Shell.run(["study", "plan", Self.example, "fewer.csv", "-o", "study"], in: folder)
        #expect(fewer.status == 2 && fewer.stderr.contains("patient P8 of the study's key is not in the patients' CSV"), "\(fewer.stderr)")
        try FileManager.default.moveItem(atPath: folder + "/study/key", toPath: folder + "/key-kept-apart")
        let keyAway = try Shell.run(["study", "plan", Self.example, "inserted.csv", "-o", "study"], in: folder)
        #expect(keyAway.status == 2 && keyAway.stderr.contains(" (the study's plan) to "), "\(keyAway.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/study/key"), "no new key is written")

        // Inputs where the plan writes, and a study inside a music folder.
        try FileManager.default.createDirectory(atPath: folder + "/other/plan", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.example, toPath: folder + "/other/plan/study.json")
        try FileManager.default.copyItem(atPath: Self.packageRoot + "/Presets/studies/example-calibration.json",
                                         toPath: folder + "/other/plan/example-calibration.json")
        let overProtocol = try Shell.run(["study", "plan", "other/plan/study.json", "patients.csv", "-o", "other"], in: folder)
        #expect(overProtocol.status == 2 && overProtocol.stderr.contains("the plan writes other/plan/study.json, which is the protocol"),
                "\(overProtocol.stderr)")
        let inMusic = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "songs/P3/study"], in: folder)
        #expect(inMusic.status == 2 && inMusic.stderr == "shades: error: -o songs/P3/study is inside patient P3's music folder songs/P3 "
                + "(allowed: a study folder apart from the patients' music)\n", "\(inMusic.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/songs/P3/study"))
    }

    /// A patient whose file was cut short is not done, and a build makes it again (it was said to be "built by
    /// another build" and left damaged).
    @Test func aDamagedPatientIsNotDoneAndIsBuiltAgain() throws {
        let folder = temporaryFolder("study-damaged")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(2, in: folder)
        // A cover beside the songs is no song (it stopped the plan: "Format not recognised.").
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/songs/P1/cover.jpg"))
        let plan = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(plan.status == 0, "\(plan.stderr)")
        // More tasks than patients: a task per patient.
        let slurm = try Shell.run(["study", "slurm", "study", "--tasks", "50"], in: folder)
        #expect(slurm.status == 0 && slurm.stdout.contains(": 2 tasks (one per patient, not --tasks 50) for 2 patients;"), "\(slurm.stdout)")
        let built = try Shell.run(["study", "build", "study"], in: folder)
        try #require(built.status == 0, "\(built.stderr)")
        let patientFolder = StudyFolder(folder + "/study").patientFolder(of: "P1")
        let sound = try #require(try FileManager.default.contentsOfDirectory(atPath: patientFolder).first { $0.hasSuffix(".flac") })
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: patientFolder + "/" + sound))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        let status = try Shell.run(["study", "status", "study"], in: folder)
        #expect(status.status == 1 && status.stdout.contains("1 of 2 patients done"), "\(status.stdout)")
        let again = try Shell.run(["study", "build", "study", "--patient", "P1"], in: folder)
        #expect(again.status == 0 && again.stdout.contains("P1 built in "), "\(again.stdout)")
        let check = try Shell.run(["study", "check", "study"], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
    }

    /// Shams of a ripple at 20 dB SL (-49 to -56 LUFS, where BS.1770's absolute gate drops the quietest blocks)
    /// are built within 0.01 LU of their twins' loudness: one linear step left three of these 0.1 to 0.2 LU off,
    /// and the build said nothing.
    @Test func quietShamsMatchTheirTwinsLoudness() throws {
        let folder = temporaryFolder("study-quiet-sham")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audiogram = try Shell.run(["audiometry", "--simulate-audiogram", "125:10,250:5,500:5,1000:10,2000:15,3000:15,4000:15,6000:20,8000:25",
                                       "--seed", "1", "-o", "a.json"], in: folder)
        try #require(audiogram.status == 0, "\(audiogram.stderr)")
        let protocolJSON = """
            { "name": "quiet", "seed": 2026, "calibration": "\(Self.packageRoot)/Presets/studies/example-calibration.json",
              "ceilingDBSPL": 85, "rate": 48000, "format": "flac", "sampleFormat": "s24",
              "arms": [
                { "name": "ripple", "sounds": [ { "name": "ripple", "level": "20 dB SL", "durationSeconds": 60,
                    "sound": { "source": "ripple", "frequency": "{tinnitusHz}", "condition": "amplitude" } } ] },
                { "name": "ripple-sham", "shamOf": "ripple" } ] }
            """
        try protocolJSON.write(toFile: folder + "/quiet.json", atomically: true, encoding: .utf8)
        let csv = "id,site,arm,tinnitusHz,audiogram,mml,music\nS3,Ulm,ripple-sham,4000,a.json,,\nS8,Ulm,ripple-sham,4000,a.json,,\n"
            + "T2,Ulm,ripple-sham,2000,a.json,,\n"
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
        for command in [["study", "plan", "quiet.json", "patients.csv", "-o", "study"], ["study", "build", "study"]] {
            let run = try Shell.run(command, in: folder)
            try #require(run.status == 0, "\(command): \(run.stderr)")
        }
        let study = StudyFolder(folder + "/study")
        for id in ["S3", "S8", "T2"] {
            let key = try JSONDecoder().decode(PatientKey.self, from: Data(contentsOf: URL(fileURLWithPath: study.keyPath(of: id))))
            let sham = try #require(key.sounds.first)
            let offLU = sham.integratedLUFS - (try #require(sham.twinLUFS))
            #expect(abs(offLU) <= 0.01, "\(id): the sham is \(offLU) LU off its twin")
        }
        let check = try Shell.run(["study", "check", "study"], in: folder)
        #expect(check.status == 0, "\(check.stderr)")
    }

    /// Measurements that cannot be the patient's: a threshold no audiometer measures, an MML measured away
    /// from the tinnitus frequency.
    @Test func measurementsThatCannotBeThePatientsAreRefused() throws {
        let folder = temporaryFolder("study-measurements")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(1, in: folder)
        var audiogram = try String(contentsOfFile: folder + "/a/P1.json", encoding: .utf8)
        let threshold = try #require(audiogram.range(of: #""thresholdDB" : [0-9.]+"#, options: .regularExpression))
        audiogram.replaceSubrange(threshold, with: "\"thresholdDB\" : -50")
        try audiogram.write(toFile: folder + "/a/low.json", atomically: true, encoding: .utf8)
        let tinnitus = try String(contentsOfFile: folder + "/patients.csv", encoding: .utf8).split(separator: "\n")[1]
            .split(separator: ",", omittingEmptySubsequences: false)[3]
        let cases: [(row: String, expected: String)] = [
            ("P1,Ulm,ripple,\(tinnitus),a/low.json,,", "patient P1: a/low.json: the "),
            ("P1,Ulm,ripple,2000,a/P1.json,m/P1.json,", "patient P1: the MML m/P1.json was measured at \(tinnitus) Hz, 1 octave wide, away from the tinnitusHz 2000"),
        ]
        for (row, expected) in cases {
            try "id,site,arm,tinnitusHz,audiogram,mml,music\n\(row)\n".write(toFile: folder + "/one.csv", atomically: true, encoding: .utf8)
            let run = try Shell.run(["study", "plan", Self.example, "one.csv", "-o", "study"], in: folder)
            #expect(run.status == 1 && run.stderr.hasPrefix("shades: error: \(expected)"), "\(run.stderr)")
            #expect(row.contains("low") ? run.stderr.contains("-50 dB HL, is out of range (allowed: -10 … 120 dB HL)") : true, "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/study"))
        }
    }

    /// The blinding scan reads a file's tags, not its binary fields: arms named A and B were "found" in the
    /// random bytes of a FLAC's STREAMINFO and in libFLAC's version; a tag that names a sound still is.
    @Test(arguments: ["flac", "wav"])
    func theBlindingScanReadsTagsNotBinaryFields(container: String) throws {
        let folder = temporaryFolder("study-scan")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let protocolJSON = """
            { "name": "ab", "seed": 7, "calibration": "\(Self.packageRoot)/Presets/studies/example-calibration.json",
              "ceilingDBSPL": 85, "rate": 48000, "format": "\(container)", "sampleFormat": "s24",
              "arms": [ { "name": "A", "sounds": [ { "name": "2", "level": "-30 LUFS", "durationSeconds": 5,
                                                     "sound": { "source": "pink", "am": { "rateHz": 10, "depth": 1 } } } ] },
                        { "name": "B", "shamOf": "A" } ] }
            """
        try protocolJSON.write(toFile: folder + "/ab.json", atomically: true, encoding: .utf8)
        var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
        for i in 1...6 { csv += "P\(i),Ulm,,6000,,,\n" }
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
        for command in [["study", "plan", "ab.json", "patients.csv", "-o", "study"], ["study", "build", "study"], ["study", "check", "study"]] {
            let run = try Shell.run(command, in: folder)
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
        let patientFolder = StudyFolder(folder + "/study").patientFolder(of: "P1")
        let sound = try #require(try FileManager.default.contentsOfDirectory(atPath: patientFolder).first { $0.hasSuffix("." + container) })
        try FileManager.default.removeItem(atPath: patientFolder + "/" + sound)
        let tagged = try Shell.run(["render", "pink", "--duration", "5s", "--format", "s24", "-o", patientFolder + "/" + sound], in: folder)
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let check = try Shell.run(["study", "check", "study"], in: folder)
        #expect(check.status == 1 && check.stderr.contains("patient P1: \(sound): its metadata holds 'pink'"), "\(check.stderr)")
    }

    /// A problem of the protocol (a sham of a sound that has none) is the same for every patient of its arm:
    /// said once, naming them, with exit status 2 (500 patients printed 168 identical lines, exit 1).
    @Test func aProtocolsProblemIsSaidOnceForItsPatients() throws {
        let folder = temporaryFolder("study-protocol-problem")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let protocolJSON = """
            { "name": "pp", "seed": 7, "calibration": "\(Self.packageRoot)/Presets/studies/example-calibration.json",
              "ceilingDBSPL": 85, "rate": 48000, "format": "flac", "sampleFormat": "s24",
              "arms": [ { "name": "A", "sounds": [ { "name": "pink", "level": "-30 LUFS", "durationSeconds": 5, "sound": { "source": "pink" } } ] },
                        { "name": "B", "shamOf": "A" } ] }
            """
        try protocolJSON.write(toFile: folder + "/p.json", atomically: true, encoding: .utf8)
        let csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n" + (1...6).map { "P\($0),Ulm,B,6000,,,\n" }.joined()
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
        let run = try Shell.run(["study", "plan", "p.json", "patients.csv", "-o", "study"], in: folder)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("shades: error: patients P1, P2, P3 and 3 more, sound pink: sham of "),
                "\(run.stderr)")
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

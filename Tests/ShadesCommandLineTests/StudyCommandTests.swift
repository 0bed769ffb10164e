import Testing
import Foundation
import ShadesTestSupport

/// `shades study plan` on the repository's example protocol: a cohort made by the procedures' simulated
/// listeners, allocated, planned byte-identically; a cohort with bad rows refused, one line per patient.
@Suite struct StudyCommandTests {
    /// Presets/studies/example-study.json in the package.
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Presets/studies/example-study.json").path

    /// A cohort of `count` patients at two sites in `folder`: audiograms (mild loss) and MMLs from the
    /// simulated listeners, one short song each; arms left to the allocation.
    func makeCohort(_ count: Int, in folder: String) throws {
        var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
        for sub in ["a", "m"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        for i in 1...count {
            let audiogram = try Shell.run(["audiometry", "--simulate-audiogram", "250:5,500:5,1000:10,2000:10,4000:15,8000:20",
                                           "--seed", "\(i)", "-o", "a/P\(i).json"], in: folder)
            try #require(audiogram.status == 0, "\(audiogram.stderr)")
            let mml = try Shell.run(["mml", "--frequency", "6kHz", "--threshold", "-\(70 + i % 7)", "--simulate", "20dB", "-o", "m/P\(i).json"], in: folder)
            try #require(mml.status == 0, "\(mml.stderr)")
            try FileManager.default.createDirectory(atPath: folder + "/songs/P\(i)", withIntermediateDirectories: true)
            let song = try Shell.run(["render", "pink", "--duration", "2s", "--am", "0.5", "-o", "songs/P\(i)/song.flac"], in: folder)
            try #require(song.status == 0, "\(song.stderr)")
            csv += "P\(i),\(i % 2 == 0 ? "Ulm" : "Regensburg"),,\(5000 + 250 * (i % 5)),a/P\(i).json,m/P\(i).json,songs/P\(i)\n"
        }
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
    }

    @Test func plansTheExampleStudyTheSameBytesTwice() throws {
        let folder = temporaryFolder("study-plan")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeCohort(12, in: folder)
        let run = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "study"], in: folder)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("planned 12 patients ("), "\(run.stdout)")
        let plan = try Data(contentsOf: URL(fileURLWithPath: folder + "/study/plan.json"))
        let again = try Shell.run(["study", "plan", Self.example, "patients.csv", "-o", "again"], in: folder)
        try #require(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/again/plan.json")) == plan, "the same inputs give the same plan")

        let json = try JSONSerialization.jsonObject(with: plan) as! [String: Any]
        let patients = try #require(json["patients"] as? [[String: Any]])
        #expect(patients.count == 12)
        for patient in patients {
            let sounds = try #require(patient["sounds"] as? [[String: Any]])
            let arm = try #require(patient["arm"] as? String)
            #expect(!sounds.isEmpty && sounds.allSatisfy { ($0["code"] as? String)?.count == 8 })
            // A sham has its twin's level asked and the sham flag; an active sound not.
            #expect(sounds.allSatisfy { ($0["sham"] as? Bool) == arm.hasSuffix("-sham") }, "\(patient)")
            // Every level, loudness too, is resolved to dB SPL (under the ceiling) before anything is rendered.
            #expect(sounds.allSatisfy { ($0["levelDBSPL"] as? Double).map { $0 <= 85 } == true }, "\(patient)")
        }
        let key = try String(contentsOfFile: folder + "/study/key/allocation.csv", encoding: .utf8)
        #expect(key.split(separator: "\n").count == 13 && key.hasPrefix("id,site,arm,block\n"))
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
}

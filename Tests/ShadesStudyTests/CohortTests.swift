import Testing
import ShadesDSP
import ShadesStudy

/// The patients' CSV and the allocation of arms.
struct CohortTests {
    let arms = ["music", "music-sham", "am", "am-sham"]

    @Test func readsEveryColumnQuotedCellsAndPerEarFrequencies() throws {
        let csv = """
            site,id,arm,tinnitusHz,audiogram,mml,music
            "Regensburg, ENT",P01,am,6000,a/P01.json,m/P01.json,songs/P01
            Ulm,P02,,left=4000 right=7400,/abs/P02.json,,

            """
        let table = try PatientTable(csv: csv, path: "study/patients.csv", arms: arms)
        #expect(table.patients.count == 2)
        let first = table.patients[0], second = table.patients[1]
        #expect(first.site == "Regensburg, ENT" && first.id == "P01" && first.arm == "am" && first.line == 2)
        #expect(first.tinnitusHz == EarFrequencies(leftHz: 6000, rightHz: 6000))
        #expect(first.audiogramPath == "study/a/P01.json" && first.mmlPath == "study/m/P01.json" && first.musicFolder == "study/songs/P01")
        #expect(second.arm == nil && second.tinnitusHz == EarFrequencies(leftHz: 4000, rightHz: 7400))
        #expect(second.audiogramPath == "/abs/P02.json" && second.mmlPath == nil && second.musicFolder == nil)
        #expect(second.tinnitusHz.text == "left=4000 right=7400" && first.tinnitusHz.text == "6000")
    }

    @Test func refusesEveryOffendingPatientOneLineEach() {
        let csv = """
            id,site,arm,tinnitusHz,audiogram,mml,music
            P01,Ulm,am,6000,,,
            P01,Ulm,,6000,,,
            P03,Ulm,placebo,6000,,,
            P04,Ulm,,6 kHz,,,
            ../P05,Ulm,,6000,,,
            P06,,,6000,,,
            P07,Ulm,am,6000,,
            P08,Ulm,am,left=6000 left=7000,,,
            """
        do {
            _ = try PatientTable(csv: csv, path: "patients.csv", arms: arms)
            Issue.record("the table was read")
        } catch {
            let lines = error.message.split(separator: "\n").map(String.init)
            #expect(lines == [
                "patients.csv:3: patient P01: id P01 is repeated (first on line 2)",
                "patients.csv:4: patient P03: arm 'placebo' is not one of the protocol's (allowed: music, music-sham, am, am-sham, or empty to allocate)",
                "patients.csv:5: patient P04: tinnitusHz '6 kHz' is not a frequency (allowed: Hz above 0, e.g. 6000, or left=6000 right=7400)",
                "patients.csv:6: patient ../P05: id '../P05' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')",
                "patients.csv:7: patient P06: site is empty (allowed: the site's name)",
                "patients.csv:8: patient P07: has 6 cells (allowed: 7, one per column)",
                "patients.csv:9: patient P08: tinnitusHz 'left=6000 left=7000' is not a frequency (allowed: Hz above 0, e.g. 6000, or left=6000 right=7400)",
            ])
        }
    }

    /// A spreadsheet's byte order mark is no part of the first column; ids and sites that differ only in case
    /// (one folder on macOS, two strata of the allocation), hexadecimal and one ear alone are refused.
    @Test func readsASpreadsheetsCSVAndRefusesCaseTwinsHexAndOneEar() throws {
        let table = try PatientTable(csv: "\u{FEFF}id,site,arm,tinnitusHz,audiogram,mml,music\nP01,Ulm,am,6000,,,\n", path: "p.csv", arms: arms)
        #expect(table.patients.map(\.id) == ["P01"])
        let csv = """
            id,site,arm,tinnitusHz,audiogram,mml,music
            P01,Ulm,am,6000,,,
            p01,Ulm,am,6000,,,
            P03,ulm,am,6000,,,
            P04,Ulm,am,0x1770,,,
            P05,Ulm,am,left=4000,,,
            """
        do {
            _ = try PatientTable(csv: csv, path: "p.csv", arms: arms)
            Issue.record("the table was read")
        } catch {
            #expect(error.message.split(separator: "\n").map(String.init) == [
                "p.csv:3: patient p01: id p01 is P01 of line 2 in another case (allowed: ids that differ in more than case)",
                "p.csv:4: patient P03: site 'ulm' is 'Ulm' of line 2 in another case (allowed: one spelling per site)",
                "p.csv:5: patient P04: tinnitusHz '0x1770' is not a frequency (allowed: Hz above 0, e.g. 6000, or left=6000 right=7400)",
                "p.csv:6: patient P05: tinnitusHz 'left=4000' gives one ear only (allowed: one frequency for both ears, or left=6000 right=7400)",
            ])
        }
    }

    @Test func refusesAWrongHeaderAndAnEmptyTable() {
        #expect(throws: ShadesError.self) { try PatientTable(csv: "", path: "p.csv", arms: arms) }
        do {
            _ = try PatientTable(csv: "id,site,arm,tinnitus,audiogram,mml,music\n", path: "p.csv", arms: arms)
        } catch {
            #expect(error.message == "p.csv:1: missing column tinnitusHz; unknown column tinnitus (allowed: the columns id,site,arm,tinnitusHz,audiogram,mml,music)")
        }
        #expect(throws: ShadesError.self) { try PatientTable(csv: "id,site,arm,tinnitusHz,audiogram,mml,music\n", path: "p.csv", arms: arms) }
    }

    /// Patients `count` at each of `sites`, none with an arm.
    func cohort(_ count: Int, sites: [String]) throws -> [Patient] {
        var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
        for i in 0..<count { csv += "P\(i),\(sites[i % sites.count]),,6000,,,\n" }
        return try PatientTable(csv: csv, path: "p.csv", arms: arms).patients
    }

    @Test func blocksBalanceTheArmsWithinEachSite() throws {
        let patients = try cohort(80, sites: ["Ulm", "Regensburg"])
        let allocation = Allocation(patients: patients, arms: arms, seed: 7)
        for site in ["Ulm", "Regensburg"] {
            let entries = allocation.entries.filter { $0.site == site }
            let blocks = Dictionary(grouping: entries, by: { $0.block! })
            var sizes: Set<Int> = []
            // Every block but the last is whole: each arm as often as every other.
            for (number, block) in blocks where number < blocks.keys.max()! {
                let counts = Dictionary(grouping: block, by: \.arm).mapValues(\.count)
                #expect(Set(counts.keys) == Set(arms) && Set(counts.values).count == 1, "site \(site) block \(number): \(counts)")
                sizes.insert(block.count)
            }
            #expect(sizes.isSubset(of: [4, 8]))
        }
        #expect(sizesDiffer(allocation), "block sizes are drawn, not fixed")
    }

    func sizesDiffer(_ allocation: Allocation) -> Bool {
        Set(Dictionary(grouping: allocation.entries, by: { "\($0.site)#\($0.block!)" }).values.map(\.count)).count > 1
    }

    @Test func theSameSeedGivesTheSameArmsAndSitesAreIndependent() throws {
        let patients = try cohort(40, sites: ["Ulm", "Regensburg"])
        let once = Allocation(patients: patients, arms: arms, seed: 7)
        #expect(once == Allocation(patients: patients, arms: arms, seed: 7))
        #expect(once.entries.map(\.arm) != Allocation(patients: patients, arms: arms, seed: 8).entries.map(\.arm))
        // A patient more at another site changes nothing at Ulm.
        var more = patients
        more.insert(Patient(id: "X", site: "Tübingen", arm: nil, tinnitusHz: EarFrequencies(leftHz: 6000, rightHz: 6000),
                            audiogramPath: nil, mmlPath: nil, musicFolder: nil, line: 99), at: 3)
        let ulm = { (a: Allocation) in a.entries.filter { $0.site == "Ulm" }.map(\.arm) }
        #expect(ulm(Allocation(patients: more, arms: arms, seed: 7)) == ulm(once))
    }

    @Test func aGivenArmIsKeptAndTheCSVQuotesSites() throws {
        let csv = "id,site,arm,tinnitusHz,audiogram,mml,music\nP1,\"A, B\",am-sham,6000,,,\nP2,\"A, B\",,6000,,,\n"
        let allocation = Allocation(patients: try PatientTable(csv: csv, path: "p.csv", arms: arms).patients, arms: arms, seed: 1)
        #expect(allocation.entries[0].arm == "am-sham" && allocation.entries[0].block == nil)
        #expect(allocation.entries[1].block == 1 && arms.contains(allocation.entries[1].arm))
        #expect(allocation.csv.hasPrefix("id,site,arm,block\nP1,\"A, B\",am-sham,\nP2,\"A, B\","))
    }
}

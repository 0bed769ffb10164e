import ShadesDSP
import ShadesIO

extension StudyPlan {
    /// Checks, before anything is written, that this plan and its `allocation` can go into `folder`:
    /// - no file the plan writes (``StudyFolder/planHeaderPath``, …, ``StudyFolder/allocationKeyPath``) is one
    ///   of its inputs: the protocol, the calibration, the patients' CSV, a patient's audiogram, MML or song;
    /// - the folder is not a patient's music folder, nor inside one;
    /// - a study already planned there keeps every patient of its key, each with the arm the key gives. A new
    ///   plan may add patients (after the planned ones of their site: the allocation fills each site's blocks in
    ///   CSV order) and change sounds or measurements (`study build` rebuilds those patients); it never
    ///   re-allocates a patient, whose sounds may already be in use.
    ///
    /// `option` names the folder as the user gave it ("-o").
    package func checkWritable(into folder: StudyFolder, allocation: Allocation, option: String = "-o") throws(ShadesError) {
        let written = [folder.planHeaderPath, folder.planPatientsPath, folder.planIndexPath, folder.allocationKeyPath]
        let headerNames = ["the protocol", "the calibration", "the patients' CSV"]
        let inputs = header.inputs.enumerated().map { CommandInput($1.path, name: $0 < headerNames.count ? headerNames[$0] : "the input") }
            + patients.flatMap { patient in patient.inputs.map { CommandInput($0.path, name: "patient \(patient.id)'s input") } }
        for path in written {
            if let input = inputs.first(where: { PathIdentity($0.path) == PathIdentity(path) }) {
                throw .usage("\(option) \(folder.path): the plan writes \(path), which is \(input.described) "
                             + "(allowed: a study folder whose plan/ and key/ hold no input; an input is never overwritten)")
            }
        }
        try CommandPaths.checkOutside(folder.path, option: option,
                                      folders: musicFolders.map { CommandInput($0.folder, name: "patient \($0.patient)'s music folder") },
                                      allowed: "a study folder apart from the patients' music")
        try checkKeptArms(in: folder, allocation: allocation, option: option)
    }

    /// Refuses an allocation that drops a patient of the study already in `folder`, or gives one another arm;
    /// a line per patient, the first ``shownPatients``. The arms are the key's (`key/allocation.csv`), or the
    /// plan's when the key has been moved away (as it may be, kept apart from the study).
    private func checkKeptArms(in folder: StudyFolder, allocation: Allocation, option: String) throws(ShadesError) {
        guard let planned = try Self.plannedArms(in: folder, option: option) else { return }
        let newArms = Dictionary(allocation.entries.map { ($0.patientID, $0.arm) }) { first, _ in first }
        var problems: [String] = []
        for (id, arm) in planned.arms {
            guard let newArm = newArms[id] else {
                problems.append("\(option) \(folder.path): patient \(id) of the study's \(planned.source) is not in the patients' CSV "
                                + "(allowed: every planned patient kept, or a new study folder)")
                continue
            }
            if newArm != arm {
                problems.append("\(option) \(folder.path): patient \(id) would change arm from \(arm) (the study's \(planned.source)) to \(newArm) "
                                + "(allowed: new patients after the planned ones of their site, or a new study folder)")
            }
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(Self.shownPatients) + (problems.count > Self.shownPatients
                ? ["… and \(problems.count - Self.shownPatients) more patients"] : [])
            throw .usage(shown.joined(separator: "\n"))
        }
    }

    /// Patients named one by one in a refusal of a re-plan before the rest are counted.
    static let shownPatients = 20

    /// Each planned patient's arm in `folder`, in plan order, and where it was read ("key" or "plan"); nil for a
    /// folder with neither.
    private static func plannedArms(in folder: StudyFolder, option: String) throws(ShadesError) -> (arms: [(String, String)], source: String)? {
        let keyPath = folder.allocationKeyPath
        if (try? FileSystem.linkStatus(keyPath)) != nil {
            let text: String
            do throws(ShadesError) { text = String(decoding: try FileSystem.readFile(keyPath, upTo: 64 << 20), as: UTF8.self) } catch {
                throw .input("\(option) \(folder.path) holds a study whose key cannot be read (\(error.description)) "
                             + "(allowed: the study's key restored, or a new study folder)")
            }
            let rows = CSVRows.parse(text)
            let notAKey = ShadesError.input("\(keyPath): is not an allocation key (allowed: the id,site,arm,block CSV that shades "
                                            + "study plan writes, restored, or a new study folder)")
            guard let header = rows.first?.cells, let idColumn = header.firstIndex(of: "id"), let armColumn = header.firstIndex(of: "arm") else {
                throw notAKey
            }
            var arms: [(String, String)] = []
            for row in rows.dropFirst() where !row.cells.allSatisfy(\.isEmpty) {
                guard row.cells.count > max(idColumn, armColumn) else { throw notAKey }
                arms.append((row.cells[idColumn], row.cells[armColumn]))
            }
            return (arms, "key")
        }
        guard (try? FileSystem.linkStatus(folder.planPatientsPath)) != nil else { return nil }
        var arms: [(String, String)] = []
        try StudyPlan.forEachPatient(folder) { (patient: StudyPlan.PatientPlan) throws(ShadesError) in arms.append((patient.id, patient.arm)) }
        return (arms, "plan")
    }
}

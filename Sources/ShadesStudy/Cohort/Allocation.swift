import ShadesDSP

/// The arms of a cohort's patients: the arm the CSV gives, else one drawn in permuted blocks stratified by
/// site (Schulz & Grimes 2002, Lancet 359:515): within each site, patients in CSV order fill blocks that hold
/// every arm equally often, each block in an order drawn from the study's seed, its size drawn from
/// ``blockMultiples`` × the number of arms (mixed sizes keep the next arm from being guessed). The same
/// seed, arms and CSV give the same allocation.
public struct Allocation: Sendable, Equatable {
    /// One patient's arm and where it came from.
    public struct Entry: Sendable, Equatable {
        public var patientID: String
        public var site: String
        public var arm: String
        /// The block (per site, from 1) the arm was drawn in; nil when the CSV gave the arm.
        public var block: Int?
    }

    /// Patients in CSV order.
    public let entries: [Entry]

    /// Allocates `patients` to `arms` from `seed`; a block holds `m × arms.count` patients for an `m` drawn
    /// from `blockMultiples` (each 1 … 4).
    public init(patients: [Patient], arms: [String], seed: UInt64, blockMultiples: [Int] = [1, 2]) {
        precondition(!arms.isEmpty && !blockMultiples.isEmpty, "a protocol has arms and block sizes")
        var queues: [String: (random: SplitMix64, pending: [String], block: Int)] = [:]
        var entries: [Entry] = []
        for patient in patients {
            if let arm = patient.arm {
                entries.append(Entry(patientID: patient.id, site: patient.site, arm: arm, block: nil))
                continue
            }
            var queue = queues[patient.site] ?? (SplitMix64(seed: seed ^ Self.stableKey(patient.site)), [], 0)
            if queue.pending.isEmpty {
                let multiple = blockMultiples[Int(queue.random.next() % UInt64(blockMultiples.count))]
                var block = Array(repeating: arms, count: multiple).flatMap { $0 }
                // Fisher–Yates, drawn from the site's stream.
                for i in stride(from: block.count - 1, to: 0, by: -1) {
                    block.swapAt(i, Int(queue.random.next() % UInt64(i + 1)))
                }
                queue.pending = block.reversed()
                queue.block += 1
            }
            entries.append(Entry(patientID: patient.id, site: patient.site, arm: queue.pending.removeLast(), block: queue.block))
            queues[patient.site] = queue
        }
        self.entries = entries
    }

    /// The allocation as CSV: `id,site,arm,block` (block empty for an arm the CSV gave).
    public var csv: String {
        "id,site,arm,block\n" + entries.map { "\($0.patientID),\(CSVText.quoted($0.site)),\($0.arm),\($0.block.map(String.init) ?? "")\n" }.joined()
    }

    /// A key from `text` (a site for its allocation stream, a patient for their sounds' seed): FNV-1a of its
    /// bytes, the same on every machine and run, unlike `hashValue`.
    static func stableKey(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3 }
        return hash
    }
}

/// Writing CSV cells.
enum CSVText {
    /// `text` as one cell: quoted (quotes doubled) when it holds a comma, a quote or a line break.
    static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

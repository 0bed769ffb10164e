import ShadesDSP

/// One patient of a cohort, as the patients' CSV gives it: `id,site,arm,tinnitusHz,audiogram,mml,music`.
public struct Patient: Sendable, Equatable {
    /// The patient's code in the study (letters, digits, `-`, `_`; it names the patient's folder).
    public var id: String
    /// The site the patient was recruited at (allocation is stratified by it).
    public var site: String
    /// The arm, when the CSV gives it; nil: allocated from the protocol's seed (``Allocation``).
    public var arm: String?
    /// The tinnitus frequency per ear, Hz (both ears the same when one value is given).
    public var tinnitusHz: EarFrequencies
    /// The JSON `shades audiometry` wrote for the patient, a path resolved against the CSV's folder; nil when
    /// the cell is empty.
    public var audiogramPath: String?
    /// The JSON `shades mml` wrote for the patient, resolved like ``audiogramPath``.
    public var mmlPath: String?
    /// The folder of the patient's songs, resolved like ``audiogramPath``.
    public var musicFolder: String?
    /// The CSV line the patient is on (1 is the header).
    public var line: Int

    public init(id: String, site: String, arm: String? = nil, tinnitusHz: EarFrequencies, audiogramPath: String? = nil,
                mmlPath: String? = nil, musicFolder: String? = nil, line: Int = 0) {
        (self.id, self.site, self.arm, self.tinnitusHz) = (id, site, arm, tinnitusHz)
        (self.audiogramPath, self.mmlPath, self.musicFolder, self.line) = (audiogramPath, mmlPath, musicFolder, line)
    }
}

/// A frequency measured per ear, Hz: `6000` (both ears), or `left=6000 right=7400`. One ear alone is refused:
/// every sound is made for both ears, and the other ear's frequency would be a guess.
public struct EarFrequencies: Sendable, Equatable {
    public var leftHz: Double?
    public var rightHz: Double?

    public init(leftHz: Double?, rightHz: Double?) { (self.leftHz, self.rightHz) = (leftHz, rightHz) }

    /// The cell's text; nil when it is not one of the forms.
    init?(cell: String) {
        let text = cell.trimmedOfSpaces
        if let both = Self.hertz(text) {
            (leftHz, rightHz) = (both, both)
            return
        }
        for part in text.split(separator: " ", omittingEmptySubsequences: true) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let hz = Self.hertz(pair[1]) else { return nil }
            switch pair[0] {
            case "left" where leftHz == nil: leftHz = hz
            case "right" where rightHz == nil: rightHz = hz
            default: return nil
            }
        }
        if leftHz == nil || rightHz == nil { return nil }
    }

    private static func hertz(_ text: String) -> Double? {
        // Decimal numbers only: Double("0x1770") would read hexadecimal.
        guard text.allSatisfy({ "0123456789.eE+-".contains($0) }), let value = Double(text), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// The text the CSV and the plan write: one number when the ears agree.
    public var text: String {
        if leftHz == rightHz, let hz = leftHz { return formatNumber(hz) }
        return [leftHz.map { "left=\(formatNumber($0))" }, rightHz.map { "right=\(formatNumber($0))" }]
            .compactMap { $0 }.joined(separator: " ")
    }
}

/// The patients of a cohort, read from its CSV; every problem of every row is found before any is refused.
public struct PatientTable: Sendable {
    /// The columns, in any order, each exactly once.
    public static let columns = ["id", "site", "arm", "tinnitusHz", "audiogram", "mml", "music"]

    public let patients: [Patient]

    /// Reads `text` (the CSV at `path`; relative paths in it are resolved against its folder). `arms` are the
    /// protocol's arm names. Throws one error whose message has one line per offending row.
    public init(csv text: String, path: String, arms: [String]) throws(ShadesError) {
        let rows = CSVRows.parse(text)
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : nil
        guard let header = rows.first?.cells.map({ $0.trimmedOfSpaces }) else {
            throw ShadesError.input("\(path): is empty (allowed: a header line \(Self.columns.joined(separator: ",")) and one line per patient)")
        }
        let missing = Self.columns.filter { !header.contains($0) }
        let unknown = header.filter { !Self.columns.contains($0) }
        let repeated = Set(header.filter { name in header.filter { $0 == name }.count > 1 })
        guard missing.isEmpty, unknown.isEmpty, repeated.isEmpty else {
            let what = [missing.isEmpty ? nil : "missing column \(missing.joined(separator: ", "))",
                        unknown.isEmpty ? nil : "unknown column \(unknown.joined(separator: ", "))",
                        repeated.isEmpty ? nil : "repeated column \(repeated.sorted().joined(separator: ", "))"]
            throw ShadesError.input("\(path):1: \(what.compactMap { $0 }.joined(separator: "; ")) (allowed: the columns \(Self.columns.joined(separator: ",")))")
        }
        var patients: [Patient] = []
        var problems: [String] = []
        // Ids and sites are compared without case: a patient's folder is named by the id, and macOS and
        // Windows take P01 and p01 for one folder; sites in two spellings would be two strata of the allocation.
        var lineOfID: [String: (line: Int, id: String)] = [:]
        var siteSpelling: [String: (line: Int, site: String)] = [:]
        for row in rows.dropFirst() where !row.cells.allSatisfy({ $0.trimmedOfSpaces.isEmpty }) {
            var cell: [String: String] = [:]
            for (name, value) in zip(header, row.cells) { cell[name] = value.trimmedOfSpaces }
            let id = cell["id"] ?? ""
            func refuse(_ text: String) { problems.append("\(path):\(row.line): patient \(id.isEmpty ? "(no id)" : id): \(text)") }
            guard row.cells.count == header.count else {
                refuse("has \(row.cells.count) cells (allowed: \(header.count), one per column)")
                continue
            }
            if !Self.isCode(id) { refuse("id '\(id)' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')") }
            if let first = lineOfID[id.lowercased()] {
                refuse(first.id == id ? "id \(id) is repeated (first on line \(first.line))"
                                      : "id \(id) is \(first.id) of line \(first.line) in another case (allowed: ids that differ in more than case)")
            } else {
                lineOfID[id.lowercased()] = (row.line, id)
            }
            let site = cell["site"] ?? ""
            if site.isEmpty { refuse("site is empty (allowed: the site's name)") }
            if let first = siteSpelling[site.lowercased()], first.site != site {
                refuse("site '\(site)' is '\(first.site)' of line \(first.line) in another case (allowed: one spelling per site)")
            } else if !site.isEmpty {
                siteSpelling[site.lowercased()] = siteSpelling[site.lowercased()] ?? (row.line, site)
            }
            let arm = cell["arm"].flatMap { $0.isEmpty ? nil : $0 }
            if let arm, !arms.contains(arm) {
                refuse("arm '\(arm)' is not one of the protocol's (allowed: \(arms.joined(separator: ", ")), or empty to allocate)")
            }
            let tinnitus = EarFrequencies(cell: cell["tinnitusHz"] ?? "")
            let text = (cell["tinnitusHz"] ?? "").trimmedOfSpaces
            if tinnitus == nil, !text.contains(" "), text.hasPrefix("left=") || text.hasPrefix("right=") {
                refuse("tinnitusHz '\(text)' gives one ear only (allowed: one frequency for both ears, or left=6000 right=7400)")
            } else if tinnitus == nil {
                refuse("tinnitusHz '\(cell["tinnitusHz"] ?? "")' is not a frequency (allowed: Hz above 0, e.g. 6000, or left=6000 right=7400)")
            }
            func resolved(_ key: String) -> String? {
                guard let value = cell[key], !value.isEmpty else { return nil }
                guard let folder, !value.hasPrefix("/") else { return value }
                return folder + "/" + value
            }
            patients.append(Patient(id: id, site: site, arm: arm, tinnitusHz: tinnitus ?? EarFrequencies(leftHz: nil, rightHz: nil),
                                    audiogramPath: resolved("audiogram"), mmlPath: resolved("mml"), musicFolder: resolved("music"),
                                    line: row.line))
        }
        guard problems.isEmpty else { throw ShadesError.input(problems.joined(separator: "\n")) }
        guard !patients.isEmpty else {
            throw ShadesError.input("\(path): has no patients (allowed: one line per patient after the header)")
        }
        self.patients = patients
    }

    /// Whether `text` can name a patient (and their folder): 1 … 64 letters, digits, `-` and `_`.
    static func isCode(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }
}

extension String {
    /// Without the spaces and tabs at its ends.
    var trimmedOfSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// Rows of a CSV (RFC 4180: fields in double quotes may hold commas, quotes doubled, and line breaks), each
/// with the line it starts on. A leading byte order mark (a spreadsheet's "CSV UTF-8") is no part of the first
/// cell.
struct CSVRows {
    struct Row { var cells: [String]; var line: Int }

    static func parse(_ text: String) -> [Row] {
        var rows: [Row] = []
        var cells: [String] = []
        var field = ""
        var quoted = false
        var line = 1, rowLine = 1
        var characters = (text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)).makeIterator()
        var pending: Character? = nil
        func endRow() {
            cells.append(field)
            field = ""
            rows.append(Row(cells: cells, line: rowLine))
            cells = []
        }
        while let c = pending ?? characters.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let next = characters.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else {
                    if c == "\n" || c == "\r\n" { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where field.isEmpty: quoted = true
            case ",": cells.append(field); field = ""
            case "\n", "\r\n", "\r":
                endRow()
                line += 1
                rowLine = line
            default: field.append(c)
            }
        }
        if !field.isEmpty || !cells.isEmpty { endRow() }
        return rows
    }
}

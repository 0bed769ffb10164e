import Foundation

/// The listing of the public API of the library products (API/public-api.txt): one line per public
/// declaration, `Module  Path  declaration`, sorted, made from the symbol graphs that
/// `swift-symbolgraph-extract` (the tool behind `swift package dump-symbol-graph`) reads from the modules
/// this test bundle was built with, so the check needs no build of its own.
enum PublicAPIListing {
    /// The repository: three folders above this file (Tests/ShadesAPITests/PublicAPIListing.swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The checked-in listing.
    static let file = repository.appendingPathComponent("API/public-api.txt")

    /// The build folder: the test bundle sits in it, beside `Modules/` with the products' `.swiftmodule`s.
    static let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// The listing was made on Linux: the symbol graphs of a Darwin build name Darwin's types.
    static var isSupported: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }

    /// The library products of Package.swift (`.library(name: "…"`), in their order there.
    static func libraryProducts() throws -> [String] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.library\(\s*name:\s*"([^"]+)""#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        return pattern.matches(in: manifest, range: range).compactMap { match in
            Range(match.range(at: 1), in: manifest).map { String(manifest[$0]) }
        }
    }

    /// The listing's text: a header, then every public declaration of `modules`, one a line.
    static func generate(modules: [String]) throws -> String {
        let graphs = FileManager.default.temporaryDirectory
            .appendingPathComponent("shades-api-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: graphs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: graphs) }

        var lines: [Line] = []
        for module in modules {
            let output = graphs.appendingPathComponent(module)
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            try extractSymbolGraphs(module: module, into: output, moduleCache: graphs.appendingPathComponent("cache"))
            lines += try declarations(module: module, graphs: output)
        }
        lines.sort()

        var text = """
            # The public API of the library products, one declaration a line: module, path, declaration.
            # Generated from their symbol graphs by Tests/ShadesAPITests (`make api-listing`); do not edit.
            # A change to the public API fails the test suite until this file is regenerated and committed.

            """
        for module in modules {
            text += "# \(module): \(lines.filter { $0.module == module }.count) declarations\n"
        }
        text += "# Total: \(lines.count) declarations\n\n"
        for line in lines { text += line.text + "\n" }
        return text
    }

    // MARK: Symbol graphs

    /// Runs `swift-symbolgraph-extract` for `module` over the built modules, as `dump-symbol-graph` does.
    static func extractSymbolGraphs(module: String, into output: URL, moduleCache: URL) throws {
        let modules = buildFolder.appendingPathComponent("Modules")
        guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("\(module).swiftmodule").path) else {
            throw ListingError("\(module).swiftmodule is not in \(modules.path): build the package first")
        }
        var arguments = ["-module-name", module, "-I", modules.path,
                         "-minimum-access-level", "public", "-skip-synthesized-members",
                         "-omit-extension-block-symbols",
                         "-module-cache-path", moduleCache.path, "-output-dir", output.path]
        // The C modules the Swift modules import: module maps written by the build (C targets) and those
        // beside the sources (system libraries), and the C targets' headers.
        var moduleMaps: [URL] = []
        for folder in try contents(of: buildFolder) where folder.pathExtension == "build" {
            moduleMaps.append(folder.appendingPathComponent("module.modulemap"))
        }
        for folder in try contents(of: repository.appendingPathComponent("Sources")) {
            moduleMaps.append(folder.appendingPathComponent("module.modulemap"))
            let include = folder.appendingPathComponent("include")
            if FileManager.default.fileExists(atPath: include.path) { arguments += ["-Xcc", "-I", "-Xcc", include.path] }
        }
        for map in moduleMaps where FileManager.default.fileExists(atPath: map.path) {
            arguments += ["-Xcc", "-fmodule-map-file=\(map.path)"]
        }

        let process = Process()
        process.executableURL = try extractor()
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ListingError("swift-symbolgraph-extract failed for \(module) (status \(process.terminationStatus)):\n\(message)")
        }
    }

    /// `swift-symbolgraph-extract` from the toolchain: on PATH, or beside the `swift` on PATH.
    static func extractor() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift-symbolgraph-extract")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift").resolvingSymlinksInPath()
            let beside = swift.deletingLastPathComponent().appendingPathComponent("swift-symbolgraph-extract")
            if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        }
        throw ListingError("swift-symbolgraph-extract (part of the Swift toolchain) is not on PATH")
    }

    static func contents(of folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .sorted { $0.path < $1.path }
    }

    // MARK: Lines

    /// One line of the listing.
    struct Line: Comparable {
        let module: String
        let path: [String]
        let declaration: String

        var text: String { "\(module)  \(path.joined(separator: "."))  \(declaration)" }

        static func < (a: Line, b: Line) -> Bool {
            if a.module != b.module { return a.module < b.module }
            if a.path != b.path { return a.path.lexicographicallyPrecedes(b.path) }
            return a.declaration < b.declaration
        }
    }

    /// Conformances every type has, or that the compiler adds: left out of the listing.
    static let implicitProtocols: Set<String> = ["Copyable", "Escapable", "SendableMetatype", "BitwiseCopyable"]

    /// The declarations in `module`'s symbol graphs: its own (`Module.symbols.json`) and its extensions of
    /// other modules' types (`Module@Other.symbols.json`, their paths prefixed with the other module).
    static func declarations(module: String, graphs: URL) throws -> [Line] {
        var lines: [Line] = []
        for file in try contents(of: graphs) {
            let name = file.lastPathComponent
            guard name.hasSuffix(".symbols.json") else { continue }
            let stem = String(name.dropLast(".symbols.json".count))
            let extended: String?
            if stem == module {
                extended = nil
            } else if stem.hasPrefix(module + "@") {
                extended = String(stem.dropFirst(module.count + 1))
            } else {
                continue  // another module's graph (a re-exported import)
            }
            let graph = try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: file))
            lines += graph.lines(module: module, extendedModule: extended)
        }
        return lines
    }

    struct ListingError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The parts of a symbol graph (swift-docc-symbolkit's format) the listing reads.
struct SymbolGraph: Decodable {
    struct Fragment: Decodable { let spelling: String }
    struct Identifier: Decodable { let precise: String }
    struct Names: Decodable { let title: String }
    struct Constraint: Decodable { let kind: String; let lhs: String; let rhs: String }
    struct Extension: Decodable { let constraints: [Constraint]? }
    struct Kind: Decodable { let identifier: String }
    struct Symbol: Decodable {
        let kind: Kind
        let identifier: Identifier
        let pathComponents: [String]
        let names: Names
        let declarationFragments: [Fragment]?
        let accessLevel: String
        let swiftExtension: Extension?
    }
    struct Relationship: Decodable {
        let kind: String
        let source: String
        let target: String
        let targetFallback: String?
        let swiftConstraints: [Constraint]?
    }
    let symbols: [Symbol]
    let relationships: [Relationship]

    func lines(module: String, extendedModule: String?) -> [PublicAPIListing.Line] {
        let titles = Dictionary(symbols.map { ($0.identifier.precise, $0.names.title) }) { first, _ in first }
        // What each type conforms to or inherits from, by name.
        var supertypes: [String: [String]] = [:]
        for relationship in relationships where relationship.kind == "conformsTo" || relationship.kind == "inheritsFrom" {
            let name = titles[relationship.target]
                ?? relationship.targetFallback.map { String($0.split(separator: ".").last ?? Substring($0)) }
                ?? relationship.target
            if PublicAPIListing.implicitProtocols.contains(name) { continue }
            let conditions = relationship.swiftConstraints.map(Self.whereClause) ?? ""
            if !supertypes[relationship.source, default: []].contains(name + conditions) {
                supertypes[relationship.source, default: []].append(name + conditions)
            }
        }
        var lines: [PublicAPIListing.Line] = symbols.compactMap { symbol in
            guard !symbol.identifier.precise.contains("::SYNTHESIZED::"),
                  symbol.accessLevel == "public" || symbol.accessLevel == "open" else { return nil }
            var declaration = (symbol.declarationFragments ?? []).map(\.spelling).joined()
            declaration = declaration.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            declaration = symbol.accessLevel + " " + declaration
            // A protocol's declaration already names what it inherits.
            if symbol.kind.identifier != "swift.protocol", let inherited = supertypes[symbol.identifier.precise], !inherited.isEmpty {
                declaration += ": " + inherited.sorted().joined(separator: ", ")
            }
            if let constraints = symbol.swiftExtension?.constraints, !constraints.isEmpty {
                declaration += " (in an extension" + Self.whereClause(constraints) + ")"
            }
            let path = (extendedModule.map { [$0] } ?? []) + symbol.pathComponents
            return PublicAPIListing.Line(module: module, path: path, declaration: declaration)
        }
        // Conformances this module adds to another module's types (`extension Other: P`): the type is not
        // among the symbols; its name is in the relationships that point at it.
        let fallbacks = Dictionary(relationships.compactMap { r in r.targetFallback.map { (r.target, $0) } }) { a, _ in a }
        for (source, inherited) in supertypes where titles[source] == nil {
            let qualified = fallbacks[source] ?? source
            let path = qualified.split(separator: ".").map(String.init)
            lines.append(PublicAPIListing.Line(
                module: module, path: path,
                declaration: "extension \(path.last ?? qualified): " + inherited.sorted().joined(separator: ", ")))
        }
        return lines
    }

    static func whereClause(_ constraints: [Constraint]) -> String {
        guard !constraints.isEmpty else { return "" }
        let parts = constraints.map { $0.kind == "sameType" ? "\($0.lhs) == \($0.rhs)" : "\($0.lhs): \($0.rhs)" }
        return " where " + parts.joined(separator: ", ")
    }
}

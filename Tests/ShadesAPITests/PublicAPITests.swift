import Foundation
import Testing

/// The public API of the library products is the checked-in listing, API/public-api.txt: a change to it is
/// seen in review. `make api-listing` (SHADES_WRITE_API_LISTING=1) writes the listing instead of checking it.
@Suite struct PublicAPITests {
    static let writes = ProcessInfo.processInfo.environment["SHADES_WRITE_API_LISTING"] == "1"

    @Test(.enabled(if: PublicAPIListing.isSupported, "the listing is made from a Linux build"))
    func thePublicAPIIsTheCheckedInListing() throws {
        let products = try PublicAPIListing.libraryProducts()
        try #require(!products.isEmpty, "no .library products found in Package.swift")
        let listing = try PublicAPIListing.generate(modules: products)
        let file = PublicAPIListing.file

        if Self.writes {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try listing.write(to: file, atomically: true, encoding: .utf8)
            print("wrote \(file.path)")
            return
        }

        let checkedIn = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard listing != checkedIn else { return }
        let now = listing.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let before = checkedIn.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let added = Set(now).subtracting(before), removed = Set(before).subtracting(now)
        var message = "The public API differs from API/public-api.txt: run `make api-listing` and commit the "
            + "listing with the change (+ \(added.count) declarations in the code and not in the listing, "
            + "- \(removed.count) in the listing and no longer in the code)."
        let shown = 40
        for line in removed.sorted().prefix(shown) { message += "\n- \(line)" }
        for line in added.sorted().prefix(shown) { message += "\n+ \(line)" }
        if added.count > shown || removed.count > shown { message += "\n…" }
        Issue.record(Comment(rawValue: message))
    }
}

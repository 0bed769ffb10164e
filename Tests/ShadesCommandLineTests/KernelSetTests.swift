import Testing
import Foundation
import ShadesCatalogue
import ShadesDSP
import ShadesTestSupport

/// The seed contract across builds and CPUs: the C kernels are built for several instruction sets and
/// the fastest the CPU runs is chosen at run time, so every set must give the same bytes. Each command
/// runs once per set this CPU has (`SHADES_KERNELS`), and the files must equal the recorded SHA-256s
/// (the version that wrote them masked: ``VersionNeutralBytes``), which are the bytes the Swift kernels
/// wrote before the C kernels replaced them.
@Suite struct KernelSetTests {
    let folder = temporaryFolder("kernels")

    /// Command (before `-o FILE`) and the SHA-256 of the file it writes. None of these go through FFTW,
    /// whose plans may round differently on another CPU; the FFT-based sources are compared across
    /// kernel sets below.
    static let recorded: [(command: String, sha256: String)] = [
        ("render white --duration 1s --seed 3", "70896dd2df6ea2e6ac8bb91525c16f62254b89d481fc912897cffd216efb5c03"),
        ("render white --distribution uniform --duration 1s --channels mono", "ab8577c7a001c7729190a6d31a78f095f3021fa5a09b3acbb5ed15564b7baaf3"),
        ("render pink --duration 1s", "c97fbd6c4591de3462c30a2ad356e40d6393f0ae15b2d8485c77941d286b9c86"),
        ("render brown --duration 1s --format f32", "b28cf26b7c7e6085ffba8bacb8211bdd38b35643c998ac6e6fe366fe28509959"),
        ("render blue --duration 1s --channels diotic", "732a71ff6f901e24b5580aa0c8352013a0b93662c10c5837b4f7f6794bbc2f09"),
        ("render violet --duration 1s", "ef722afbc0a4fe1397a43c946ea4d1a5ec412b9d9b3f2e68cedc62f1d2feadb8"),
        ("render noise --beta 0.5 --duration 1s", "c6cb687d86372178feeef6d212a6aa9795883091bd73fc575e611680c262b745"),
        ("render tone --frequency 6kHz --duration 1s", "b150fcf83f8f0ebfb031ba6470176b4bb69e710350ce3a9b82c51ffb2d385b09"),
        ("render pink --am 10 --duration 1s", "88ef45a18753ceee52495497f0be8cd39e1ae883f9b03d4a869ee5723672c698"),
        ("render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 1s --channels right",
         "84b50af9cef56d62183d123434d890f6bc7c645647952428855d747a803325f8"),
        // Frame counts that are not a multiple of 16 (48,010 and 24,005): the quantiser's and the level sums'
        // last odd group of 8 and their tails. Recorded with the 8-lane C kernels, before the 16-lane ones.
        ("render white --duration 1.0002s --seed 3", "d53ad6affa6cd9b329e324d521a02b41c29da570cb595c2da06e32d4f7ac298e"),
        ("render pink --am 10 --duration 1.0002s", "3a66bf9126b1c1719eb587244fe08b9b08f1e79e868206a1fb627ebe1094987a"),
        ("render brown --duration 0.5001s --channels mono", "9b31eba60398a705a2eb55c9c4dfd711ceaa8fa94ffc164a4890548ee22136e1"),
    ]

    /// Sources through FFTW (loops, narrow-band noise, the notch): the same bytes from every kernel set.
    static let fftCommands = [
        "render pink --duration 1s --loop",
        "render brown --am 40 --am-depth 0.5 --duration 1s --loop",
        "render nbn --frequency 4kHz --width 0.5 --duration 1s",
        "render nbn --frequency 4kHz --width 0.5 --duration 1s --loop",
    ]

    static var availableSets: [KernelSet] { KernelSet.allCases.filter(\.isAvailable) }

    private func render(_ command: String, set: KernelSet, to name: String) throws -> String {
        let arguments = command.split(separator: " ").map(String.init) + ["-o", name]
        let result = try Shell.run(arguments, in: folder, environment: ["SHADES_KERNELS": set.rawValue])
        #expect(result.status == 0, "\(command) with \(set): \(result.stderr)")
        var digest = SHA256()
        digest.update(try VersionNeutralBytes.of(file: "\(folder)/\(name)"))
        return SHA256.hexString(digest.finalize())
    }

    @Test func baselineIsAlwaysAvailable() {
        #expect(KernelSet.baseline.isAvailable)
        #expect(KernelSet.active.isAvailable)
    }

    /// `SHADES_KERNELS` really selects the set (otherwise the comparisons below would compare one set).
    @Test func theEnvironmentSelectsTheKernelSet() throws {
        for set in Self.availableSets {
            let result = try Shell.run(["--version"], in: folder, environment: ["SHADES_KERNELS": set.rawValue])
            #expect(result.stdout.contains("(kernels: \(set.rawValue))"), "\(set): \(result.stdout)")
        }
    }

    @Test(arguments: recorded.indices)
    func everyKernelSetWritesTheRecordedBytes(index: Int) throws {
        let (command, expected) = Self.recorded[index]
        for set in Self.availableSets {
            let written = try render(command, set: set, to: "recorded-\(index)-\(set).wav")
            #expect(written == expected, "\(command) with \(set) wrote \(written)")
        }
    }

    @Test(arguments: fftCommands)
    func everyKernelSetWritesTheSameBytes(command: String) throws {
        let name = command.replacingOccurrences(of: " ", with: "_")
        let hashes = try Self.availableSets.map { try render(command, set: $0, to: "\(name)-\($0).wav") }
        #expect(Set(hashes).count == 1, "\(command): \(zip(Self.availableSets, hashes).map { "\($0): \($1)" })")
    }

    @Test func notchAndAnalysisAgreeAcrossKernelSets() throws {
        _ = try render("render pink --duration 3s", set: .baseline, to: "music.wav")
        var notched: [String] = [], reports: [String] = []
        for set in Self.availableSets {
            let environment = ["SHADES_KERNELS": set.rawValue]
            let notch = try Shell.run(["notch", "music.wav", "--frequency", "3kHz", "-o", "notched-\(set).wav"],
                                      in: folder, environment: environment)
            #expect(notch.status == 0, "\(set): \(notch.stderr)")
            notched.append(SHA256.hex(ofFile: "\(folder)/notched-\(set).wav") ?? "missing")
            let analysis = try Shell.run(["analyze", "music.wav", "--json"], in: folder, environment: environment)
            #expect(analysis.status == 0, "\(set): \(analysis.stderr)")
            reports.append(analysis.stdout)
        }
        #expect(Set(notched).count == 1)
        #expect(Set(reports).count == 1)
    }
}

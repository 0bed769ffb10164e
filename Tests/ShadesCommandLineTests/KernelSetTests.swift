import Testing
import Foundation
import ShadesCatalogue
import ShadesDSP
import ShadesTestSupport

/// The seed contract across builds and CPUs: the C kernels are built for several instruction sets and
/// the fastest the CPU runs is chosen at run time, so every set must give the same bytes. Each command
/// runs once per set this CPU has (`SHADES_KERNELS`), and the files must equal the recorded SHA-256s,
/// which are the bytes the Swift kernels wrote before the C kernels replaced them.
@Suite struct KernelSetTests {
    let folder = temporaryFolder("kernels")

    /// Command (before `-o FILE`) and the SHA-256 of the file it writes. None of these go through FFTW,
    /// whose plans may round differently on another CPU; the FFT-based sources are compared across
    /// kernel sets below.
    static let recorded: [(command: String, sha256: String)] = [
        ("render white --duration 1s --seed 3", "89ea7fc6916669463471c438f66a49d8cee0e4375689a264cd3517bad089363b"),
        ("render white --distribution uniform --duration 1s --channels mono", "5639790c6a633599ea16f47f65ba71096de60191377b5d9622b6893127432d18"),
        ("render pink --duration 1s", "9e14975133b0e2143dbee5d9478e35176cfd781033a6e4d921d7166e2eb83648"),
        ("render brown --duration 1s --format f32", "e61fe7a16ca41a602be4d62d659cc3aaaf1afdb432f4e0e7847a00a136c31545"),
        ("render blue --duration 1s --channels diotic", "ea92b10c47fe1d131bd24c9f71b0679837725524b274b4e222507f4034176847"),
        ("render violet --duration 1s", "d7e0cc9f373b0fc1ff2c648e318664658d1208e89d14b5969b9e1d26aeac9877"),
        ("render noise --beta 0.5 --duration 1s", "8bd22d93fee353a35938b5dac0684cd84f174f3ec75427e41aa266fae85e8f1e"),
        ("render tone --frequency 6kHz --duration 1s", "7ae28b5fedd528a2b30c41a27ac2ae6b0f5c3129ba766460dd9040360d26c121"),
        ("render pink --am 10 --duration 1s", "3552b7a4d49adcbf608c8765dbb1a6cf638a7f6ad4644bd7ca11e9d2a7edba56"),
        ("render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 1s --channels right",
         "04a0cf77abaf2855411d610b9267b0247055b60779373a3941fccd7730d0badd"),
        // Frame counts that are not a multiple of 16 (48,010 and 24,005): the quantiser's and the level sums'
        // last odd group of 8 and their tails. Recorded with the 8-lane C kernels, before the 16-lane ones.
        ("render white --duration 1.0002s --seed 3", "d40cec239492ac8e6f7c2361114d7c3a68ffcd7adf4c62c2ab824c5903eb5503"),
        ("render pink --am 10 --duration 1.0002s", "b5472626913d89d859f3890f0fc290e5313f241e26991f31f0513891b7b1c746"),
        ("render brown --duration 0.5001s --channels mono", "ef6bbffb71b68abee498ef71fe88d6e6e9bf0c0904b8be839a23a8358658a4f9"),
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
        return SHA256.hex(ofFile: "\(folder)/\(name)") ?? "missing"
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
            #expect(try render(command, set: set, to: "recorded-\(index)-\(set).wav") == expected, "\(command) with \(set)")
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

// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Shades",
    // The oldest Apple systems with `Synchronization` (`Atomic`, used by the player, the readers and the
    // writers); every other API used is older (docs/apple-platforms.md). macOS for the tool and the library,
    // iOS for the app; tvOS, watchOS and visionOS are not targets (no PortAudio, no use for a sound-file toolkit).
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // MARK: Public API
        /// Generators, filters, the real-time mixer and live metering; no file I/O. Depends only on FFTW, so an
        /// app can embed it.
        .library(name: "ShadesDSP", targets: ["ShadesDSP"]),
        /// Sound files (libsndfile) and resampling (libsamplerate).
        .library(name: "ShadesIO", targets: ["ShadesIO"]),
        /// Render jobs: a sound description plus duration, rate, channels and level → a normalised file.
        .library(name: "ShadesRender", targets: ["ShadesRender"]),
        /// Measurements of sound files: spectrum, loudness (libebur128), tone, modulation, seams, ambient level.
        .library(name: "ShadesAnalysis", targets: ["ShadesAnalysis"]),
        /// The app's sound catalogue: JSON presets, loudness-matched assets, manifest and page.
        .library(name: "ShadesCatalogue", targets: ["ShadesCatalogue"]),
        /// The sound card through PortAudio: plays a `PlayerEngine` (AudioOutput) and records (AudioInput).
        .library(name: "ShadesAudioDevice", targets: ["ShadesAudioDevice"]),
        /// The clinician's procedures as state machines: pitch match, audiometry, tinnitus loudness and MML.
        .library(name: "ShadesProcedures", targets: ["ShadesProcedures"]),
        /// Studies: a protocol and a cohort of patients become each patient's blinded, personally levelled sounds.
        .library(name: "ShadesStudy", targets: ["ShadesStudy"]),
        .executable(name: "shades", targets: ["shades"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (make docs): the DocC catalogues in Sources/<Module>/<Module>.docc.
        // A command plugin used by nothing an app builds: an app depending on Shades neither fetches nor builds it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: Implementation details (not products): one thin module per C library, and the platform layer
        .systemLibrary(
            name: "CFFTW", pkgConfig: "fftw3f",
            providers: [.apt(["libfftw3-dev"]), .brew(["fftw"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"]), .brew(["libsndfile"])]),
        .systemLibrary(
            name: "CSampleRate", pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"]), .brew(["libsamplerate"])]),
        .systemLibrary(
            name: "CPortAudio", pkgConfig: "portaudio-2.0",
            providers: [.apt(["portaudio19-dev"]), .brew(["portaudio"])]),
        .systemLibrary(
            name: "CEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"]), .brew(["libebur128"])]),

        /// The hot DSP kernels in C, built for baseline, AVX2 + FMA and AVX-512 and chosen at run time, so
        /// a plain `swift build -c release` runs as fast as a build for this CPU (Swift cannot target one
        /// function at an instruction set).
        .target(name: "CShadesKernels"),

        /// The C library (Glibc or Darwin) behind one `import ShadesPlatform`, and the C functions that Shades'
        /// own names shadow (`Platform.exit`, `Platform.open`, …). Not a product: apps do not see it.
        .target(name: "ShadesPlatform"),

        // MARK: Modules
        .target(name: "ShadesDSP", dependencies: ["CFFTW", "CShadesKernels", "ShadesPlatform"]),
        .target(name: "ShadesIO", dependencies: ["ShadesDSP", "CSndFile", "CSampleRate", "ShadesPlatform"]),
        .target(name: "ShadesRender", dependencies: ["ShadesDSP", "ShadesIO", "ShadesPlatform"]),
        .target(name: "ShadesAnalysis", dependencies: ["ShadesDSP", "ShadesIO", "CEBUR128", "ShadesPlatform"]),
        /// The personalised category is data, Presets/personal/category.json (linked into the module's folder),
        /// built in so that it is made for any presets folder.
        .target(
            name: "ShadesCatalogue",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesPlatform"],
            resources: [.embedInCode("Presets/personal.json")]),
        /// ALSA's error handler set to drop its messages (PortAudio's ALSA back end prints them on every start).
        .target(name: "CALSAQuiet", linkerSettings: [.linkedLibrary("asound", .when(platforms: [.linux]))]),
        .target(name: "ShadesAudioDevice", dependencies: ["ShadesDSP", "CPortAudio", "CALSAQuiet", "ShadesPlatform"]),
        .target(name: "ShadesProcedures", dependencies: ["ShadesDSP", "ShadesRender", "ShadesPlatform"]),
        .target(name: "ShadesStudy", dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesProcedures", "ShadesCatalogue", "ShadesPlatform"]),
        /// SIGINT, SIGTERM and SIGHUP handled on a normal thread: the handler only stores the signal and writes
        /// to a pipe (async-signal-safe); a watcher thread does the cleanup.
        .target(name: "CInterrupts"),
        .executableTarget(
            name: "shades",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesCatalogue", "ShadesAudioDevice", "ShadesProcedures",
                           "ShadesStudy", "ShadesPlatform", "CInterrupts",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // MARK: Tests
        /// What several test targets share: whole decoded files, test signals, whole-buffer spectrum estimates.
        .target(name: "ShadesTestSupport", dependencies: ["ShadesDSP", "ShadesIO", "ShadesAnalysis"], path: "Tests/Support"),
        /// Heap figures (glibc mallinfo2) for the leak tests of fuzz findings, and counts of one thread's allocations,
        /// frees and mutex locks (malloc and pthread_mutex_lock replaced) for the real-time tests.
        .target(name: "CHeapStatistics", path: "Tests/CHeapStatistics"),
        /// The DSP suites measure what they test with ShadesAnalysis' accumulators (tone, modulation, seam, notch).
        .testTarget(name: "ShadesDSPTests", dependencies: ["ShadesDSP", "ShadesAnalysis", "ShadesPlatform", "ShadesTestSupport", "CHeapStatistics"]),
        .testTarget(name: "ShadesIOTests", dependencies: ["ShadesDSP", "ShadesIO", "ShadesTestSupport"]),
        // A library suite with a few command-line checks among its tests (StimuliTests, NotchedNoiseTests,
        // MP3InputTests, FileAnalysisTests) needs the `shades` binary built too.
        .testTarget(
            name: "ShadesRenderTests",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesProcedures", "CSndFile", "ShadesTestSupport",
                           "CHeapStatistics", "shades"]),
        .testTarget(name: "ShadesAnalysisTests", dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesTestSupport", "shades"]),
        .testTarget(
            name: "ShadesCatalogueTests",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesCatalogue", "ShadesTestSupport"]),
        /// The procedures' state machines and their simulated listeners: pitch match, audiometry, loudness, MML and
        /// the half-gain rule of an audiogram.
        .testTarget(name: "ShadesProceduresTests", dependencies: ["ShadesProcedures", "ShadesRender", "ShadesDSP"]),
        /// Studies: the protocol and the cohort's CSV, allocation; levels re hearing (calibration, audiograms and MML read,
        /// levels parsed, resolved and measured in rendered files).
        .testTarget(name: "ShadesStudyTests", dependencies: ["ShadesStudy", "ShadesProcedures", "ShadesRender", "ShadesAnalysis", "ShadesIO", "ShadesDSP", "ShadesTestSupport"]),
        /// The suites that run the `shades` binary as a user would (Tests/Support/Shell.swift finds it beside
        /// the test bundle): commands, exit codes and messages, output bytes, kills and Ctrl-C, kernel sets.
        .testTarget(
            name: "ShadesCommandLineTests",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesCatalogue", "ShadesProcedures", "ShadesStudy",
                           "ShadesTestSupport", "shades"]),
        /// `shades play` and the interactive procedures (in tmux) through a real audio server (a headless
        /// PulseAudio started by scripts/live-tests.sh, `make test-live`); skipped when none is reachable.
        .testTarget(name: "ShadesLiveTests", dependencies: ["ShadesDSP", "ShadesAnalysis", "ShadesProcedures", "ShadesTestSupport", "shades"]),
        /// A study built as a Slurm job array on a real one-node cluster and with GNU Parallel (`make test-slurm` starts
        /// the cluster with scripts/slurm-cluster.sh); skipped without SLURM_CONF. cluster-study.json: its protocol.
        .testTarget(name: "ShadesClusterTests", dependencies: ["ShadesTestSupport", "shades"], exclude: ["cluster-study.json"]),
        /// The public API of the library products against the checked-in listing, API/public-api.txt
        /// (`make api-listing` regenerates it). It reads the modules' symbol graphs, so it depends on them.
        .testTarget(
            name: "ShadesAPITests",
            dependencies: ["ShadesDSP", "ShadesIO", "ShadesRender", "ShadesAnalysis", "ShadesCatalogue", "ShadesAudioDevice",
                           "ShadesProcedures", "ShadesStudy"]),
    ]
)

// MARK: Fuzzing (`make fuzz`, Fuzz/run.sh): the libFuzzer targets, added only when SHADES_FUZZ is set, so they
// are this package's own (they reach its `package` declarations, not just the public API) and neither a
// consumer nor `swift build` ever sees them. They build with `--sanitize fuzzer` into .build-fuzz.
if Context.environment["SHADES_FUZZ"] != nil {
    package.targets += [
        // Reading typed values from a fuzzer's input; the invariant check that stops a run.
        .target(name: "FuzzSupport", path: "Fuzz/Support"),
        // Catalogue files: JSON reader, schema, validation, assets.
        .executableTarget(name: "FuzzPresetParser", dependencies: ["FuzzSupport", "ShadesDSP", "ShadesCatalogue"],
                          path: "Fuzz/Targets/FuzzPresetParser"),
        // Durations, frequencies, levels, loudness and calibrations as users type them.
        .executableTarget(name: "FuzzValueParsing", dependencies: ["FuzzSupport", "ShadesDSP", "ShadesRender"],
                          path: "Fuzz/Targets/FuzzValueParsing"),
        // Sound files through libsndfile and AudioFileInput's checks.
        .executableTarget(name: "FuzzAudioFile", dependencies: ["FuzzSupport", "ShadesDSP", "ShadesIO"],
                          path: "Fuzz/Targets/FuzzAudioFile"),
        // The analysis accumulators and LoudnessMeter on hostile samples.
        .executableTarget(name: "FuzzAnalysis", dependencies: ["FuzzSupport", "ShadesDSP", "ShadesAnalysis"],
                          path: "Fuzz/Targets/FuzzAnalysis"),
    ]
}


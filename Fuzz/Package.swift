// swift-tools-version: 6.1
// libFuzzer targets for Shades, kept in their own package so the library's manifest carries no sanitizer
// flags. Build and run from the repository root: `make fuzz` (see README.md, Development). The flags come
// from the command line (`swift build -c release --sanitize fuzzer --sanitize address`), so the library
// itself is instrumented too and its coverage guides the fuzzer.
import PackageDescription

let package = Package(
    name: "ShadesFuzz",
    // Shades needs macOS 15 (see its Package.swift); a package below it cannot depend on it.
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Shades", path: "../"),
    ],
    targets: [
        // Reading typed values from a fuzzer's input; the invariant check that stops a run.
        .target(name: "FuzzSupport", path: "Support"),
        // Catalogue files: JSON reader, schema, validation, assets.
        .executableTarget(
            name: "FuzzPresetParser",
            dependencies: ["FuzzSupport", .product(name: "ShadesCatalogue", package: "Shades")],
            path: "Targets/FuzzPresetParser"),
        // Durations, frequencies, levels, loudness and calibrations as users type them.
        .executableTarget(
            name: "FuzzValueParsing",
            dependencies: ["FuzzSupport", .product(name: "ShadesRender", package: "Shades")],
            path: "Targets/FuzzValueParsing"),
        // Sound files through libsndfile and AudioFileInput's checks.
        .executableTarget(
            name: "FuzzAudioFile",
            dependencies: ["FuzzSupport", .product(name: "ShadesIO", package: "Shades")],
            path: "Targets/FuzzAudioFile"),
        // The analysis accumulators and LoudnessMeter on hostile samples.
        .executableTarget(
            name: "FuzzAnalysis",
            dependencies: ["FuzzSupport", .product(name: "ShadesAnalysis", package: "Shades")],
            path: "Targets/FuzzAnalysis"),
    ]
)

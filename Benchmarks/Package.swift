// swift-tools-version: 6.1
// Benchmarks for Shades, kept in their own package so the library itself does not depend on the
// benchmark framework. Run from this directory: `swift package benchmark` (see README.md).
import PackageDescription

let package = Package(
    name: "ShadesBenchmarks",
    // Shades needs macOS 15 (see its Package.swift); a package below it cannot depend on it.
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Shades", path: "../"),
        // The MallocInterposer trait provides the malloc counters (mallocCountTotal) on Swift 6.3.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Configuration shared by the suites: quick mode, metrics, samples/s and real-time factor.
        .target(
            name: "ShadesBenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Support"
        ),
        // Streaming and whole-loop synthesis: the real-time render path and the offline render path.
        .executableTarget(
            name: "Sources",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "ShadesBenchmarkSupport",
                .product(name: "ShadesDSP", package: "Shades"),
                .product(name: "ShadesRender", package: "Shades"),
            ],
            path: "Benchmarks/Sources",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Writing rendered sounds to files (quantisation, dither, libsndfile).
        .executableTarget(
            name: "Files",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "ShadesBenchmarkSupport",
                .product(name: "ShadesDSP", package: "Shades"),
                .product(name: "ShadesIO", package: "Shades"),
                .product(name: "ShadesRender", package: "Shades"),
                .product(name: "ShadesAnalysis", package: "Shades"),
                .product(name: "ShadesCatalogue", package: "Shades"),
            ],
            path: "Benchmarks/Files",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // One patient's build for each arm of the example study: core-seconds per patient.
        .executableTarget(
            name: "Studies",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "ShadesBenchmarkSupport",
                .product(name: "ShadesDSP", package: "Shades"),
                .product(name: "ShadesRender", package: "Shades"),
                .product(name: "ShadesStudy", package: "Shades"),
            ],
            path: "Benchmarks/Studies",
            exclude: ["Fixtures"],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

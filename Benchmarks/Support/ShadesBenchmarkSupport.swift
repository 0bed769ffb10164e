import Benchmark
import Foundation

/// Settings shared by the Shades benchmark suites.
public enum ShadesBench {
    /// True when `SHADES_BENCH_QUICK` is set to anything but empty or `0`: a smoke run for CI with a
    /// handful of iterations per benchmark instead of a measurement worth comparing.
    public static let quick: Bool = {
        guard let value = ProcessInfo.processInfo.environment["SHADES_BENCH_QUICK"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// True when `SHADES_BENCH_SELFTEST` is set: registers a deliberately allocating stream benchmark
    /// that the zero-malloc threshold check must reject (see README.md).
    public static let selfTest: Bool = {
        guard let value = ProcessInfo.processInfo.environment["SHADES_BENCH_SELFTEST"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// Interleaved samples (frames × channels) rendered per second of wall-clock time.
    public static let samplesPerSecond = BenchmarkMetric.custom(
        "samplesPerSecond", polarity: .prefersLarger, useScalingFactor: false)

    /// Seconds of audio rendered per second of wall-clock time (1 = just real time).
    public static let realTimeFactor = BenchmarkMetric.custom(
        "realTimeFactor", polarity: .prefersLarger, useScalingFactor: false)

    /// The metrics every Shades benchmark reports.
    public static let metrics: [BenchmarkMetric] = [
        .wallClock, .throughput, .mallocCountTotal, samplesPerSecond, realTimeFactor,
    ]

    /// Tolerance for a metric that must stay exactly where its threshold is (zero allocations).
    public static var exact: BenchmarkThresholds {
        BenchmarkThresholds(
            relative: BenchmarkThresholds.Relative.none,
            absolute: [.p0: 0, .p25: 0, .p50: 0, .p75: 0, .p90: 0, .p99: 0, .p100: 0])
    }

    /// Sets `Benchmark.defaultConfiguration` for a suite: few iterations in quick mode, enough for
    /// stable percentiles otherwise.
    public static func configureSuite() {
        Benchmark.defaultConfiguration = .init(
            metrics: metrics,
            timeUnits: .automatic,
            warmupIterations: quick ? 1 : 3,
            scalingFactor: .one,
            maxDuration: quick ? .milliseconds(200) : .seconds(3),
            maxIterations: quick ? 5 : 1_000)
    }

    /// Records the custom metrics for one measured iteration.
    /// - Parameters:
    ///   - frames: frames rendered per channel in the iteration.
    ///   - channels: channels rendered.
    ///   - sampleRate: Hz, to express the frames as seconds of audio.
    ///   - elapsed: wall-clock time of the measured region.
    public static func record(_ benchmark: Benchmark, frames: Int, channels: Int, sampleRate: Double,
                              elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        guard seconds > 0 else { return }
        benchmark.measurement(samplesPerSecond, Int((Double(frames * channels) / seconds).rounded()))
        benchmark.measurement(realTimeFactor, Int((Double(frames) / sampleRate / seconds).rounded()))
    }
}

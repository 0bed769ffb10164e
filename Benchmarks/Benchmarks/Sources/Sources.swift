// Synthesis benchmarks: the streaming render path a real-time player calls, the notch filter alone, and
// the offline whole-file render (Renderer.render). Sources are made through the public API an app uses:
// a render request's graph (`SoundGraph.makeSource()`); whole-loop FFT synthesis is measured by the
// looped whole-file render.
//
// Metrics: wallClock, throughput, mallocCountTotal, plus the custom samplesPerSecond (frames × channels
// per second) and realTimeFactor (seconds of audio per second). Streaming benchmarks must not allocate:
// their mallocCountTotal threshold is exactly 0 (Thresholds/*.p90.json, checked by
// `swift package benchmark thresholds check`).

import Benchmark
import ShadesBenchmarkSupport
import ShadesDSP
import ShadesRender

/// Frames per render call, as an audio callback would ask for.
let framesPerCall = 512
let sampleRate = 48_000.0

/// The stream of `sound` (stereo unless told, at 48 kHz) as a player pulls it: the request's source graph.
func graphSource(_ generator: Generator, layout: ChannelLayout = .stereo, levelDBFS: Double = -20, seed: UInt64 = 1,
                 modulation: Modulation? = nil, pulses: Pulses? = nil, notches: [NotchSpec]? = nil) throws -> any AudioSource {
    try SoundGraph(RenderRequest(sound: Sound(.generator(generator), notches: notches, modulation: modulation, pulses: pulses),
                                 durationSeconds: 600, sampleRate: sampleRate, layout: layout, level: .rms(dBFS: levelDBFS),
                                 seed: seed)).makeSource()
}

/// The stream of a whole `Sound` (a mix of layers), stereo at 48 kHz.
func graphSource(_ sound: Sound) throws -> any AudioSource {
    try SoundGraph(RenderRequest(sound: sound, durationSeconds: 600, sampleRate: sampleRate, layout: .stereo)).makeSource()
}

/// A source and the caller-owned buffer it renders into, both made before measuring starts.
final class StreamState {
    let source: any AudioSource
    let buffer: AudioBuffer

    /// `source`, prepared for real time as a player prepares it (a notch then streams in partitions).
    init(_ source: any AudioSource) {
        self.source = source
        RealTimePreparation.prepare(source)
        buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: framesPerCall)
    }
}

/// A source that allocates on every render call: the control case proving the zero-malloc check bites.
final class AllocatingSource: AudioSource {
    let wrapped: any AudioSource
    var sampleRate: Double { wrapped.sampleRate }
    var channelCount: Int { wrapped.channelCount }

    init(_ wrapped: any AudioSource) { self.wrapped = wrapped }

    func prepareForRealTime(_ preparation: RealTimePreparation) { wrapped.prepareForRealTime(preparation) }

    func render(into block: AudioBlock) {
        let scratch = [Float](unsafeUninitializedCapacity: block.frameCount) { $0.initialize(repeating: 0); $1 = $0.count }
        blackHole(scratch)
        wrapped.render(into: block)
    }
}

/// The player engine as an app drives it: every 40 render calls the sound is crossfaded (0.1 s, equal
/// power) to the next of three pink noises, and every 100 calls a second voice starts and, 30 calls later,
/// stops with a fade; the control calls run between render calls, on the same thread. The sources are made
/// before measuring and held by the pool, so releasing them frees nothing.
final class ScheduledEngineSource: AudioSource {
    let engine: PlayerEngine
    private let pool: [any AudioSource]
    private var calls = 0
    private var main: PlayerEngine.VoiceID
    private var extra: PlayerEngine.VoiceID?
    var sampleRate: Double { engine.sampleRate }
    var channelCount: Int { engine.channelCount }

    init() throws {
        let rate = 48_000.0
        pool = try (0..<5).map { try graphSource(.noise(colour: .pink, distribution: .gaussian), levelDBFS: -26, seed: UInt64($0)) }
        engine = PlayerEngine(sampleRate: rate, channelCount: 2)
        main = try engine.play(pool[0])
    }

    func prepareForRealTime(_ preparation: RealTimePreparation) {}

    func render(into block: AudioBlock) {
        calls += 1
        if calls % 40 == 0 { main = try! engine.crossfade(main, to: pool[(calls / 40) % 3], seconds: 0.1) }
        if calls % 100 == 50 { extra = try! engine.play(pool[3 + (calls / 100) % 2], gainDB: -6) }
        if calls % 100 == 80, let voice = extra { engine.stop(voice, fadeSeconds: 0.05) }
        engine.render(into: block)
    }
}

/// One iteration = 1,000 render calls of 512 frames (10.7 s of 48 kHz audio); `scalingFactor: .kilo`
/// makes the scaled wallClock/throughput/mallocCountTotal columns per render call.
func streamBenchmark(_ name: String, _ makeSource: @escaping () throws -> any AudioSource) {
    Benchmark(
        "Stream-\(name)",
        configuration: .init(
            scalingFactor: .kilo,
            thresholds: [.mallocCountTotal: ShadesBench.exact])
    ) { benchmark, state in
        let source = state.source
        state.buffer.withBlock { block in
            let clock = ContinuousClock()
            benchmark.startMeasurement()
            let start = clock.now
            for _ in benchmark.scaledIterations {
                source.render(into: block)
            }
            let elapsed = start.duration(to: clock.now)
            benchmark.stopMeasurement()
            blackHole(block.channel(0)[framesPerCall - 1])
            ShadesBench.record(benchmark, frames: benchmark.scaledIterations.count * framesPerCall,
                               channels: block.channelCount, sampleRate: source.sampleRate, elapsed: elapsed)
        }
    } setup: { () throws -> StreamState in
        StreamState(try makeSource())
    }
}

/// One iteration = 10 s of mono white noise through a notch, pulled in 16,384-frame blocks (the offline
/// block size) from the sound's graph: the notch filter's cost, with the white noise's (about 1/20 of it).
func notchFilterBenchmark(centre: Double, width: Double) {
    let frames = 10 * Int(sampleRate)
    let name = "Notch-\(Int(centre))Hz-\(width == 1 ? "1" : "half")oct-mono"
    Benchmark(name) { benchmark, state in
        let (source, buffer) = state
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        for offset in stride(from: 0, to: frames, by: 16_384) {
            buffer.withBlock(frames: 0..<min(16_384, frames - offset)) { source.render(into: $0) }
        }
        let elapsed = start.duration(to: clock.now)
        benchmark.stopMeasurement()
        blackHole(buffer.samples(channel: 0)[0])
        ShadesBench.record(benchmark, frames: frames, channels: 1, sampleRate: sampleRate, elapsed: elapsed)
    } setup: { () throws -> (any AudioSource, AudioBuffer) in
        let source = try graphSource(.noise(colour: .white, distribution: .gaussian), layout: .mono,
                                     notches: [NotchSpec(centreHz: centre, widthOctaves: width)])
        return (source, AudioBuffer(channelCount: 1, frameCapacity: 16_384))
    }
}

/// One iteration = `Renderer.render` of a whole file in memory (rendering and level measurement,
/// both ears in parallel), the path `shades render` takes before writing.
func rendererBenchmark(_ name: String, _ request: RenderRequest) {
    Benchmark("Renderer-\(name)") { benchmark in
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        let sound = try Renderer.render(request)
        let elapsed = start.duration(to: clock.now)
        benchmark.stopMeasurement()
        blackHole(sound.peakDBFS)
        ShadesBench.record(benchmark, frames: sound.buffer.frameCapacity, channels: sound.buffer.channelCount,
                           sampleRate: request.sampleRate, elapsed: elapsed)
    }
}

let benchmarks: @Sendable () -> Void = {
    ShadesBench.configureSuite()

    // Streaming: stereo, 48 kHz, 512-frame calls into a preallocated buffer.
    let colours: [(String, NoiseColour)] = [
        ("white", .white), ("pink", .pink), ("brown", .brown), ("blue", .blue), ("violet", .violet),
    ]
    for (name, colour) in colours {
        streamBenchmark("\(name)-stereo") { try graphSource(.noise(colour: colour, distribution: .gaussian)) }
    }
    streamBenchmark("noise-beta0.5-stereo") {
        try graphSource(.noise(colour: NoiseColour(beta: 0.5), distribution: .gaussian))
    }
    streamBenchmark("tone-1kHz-stereo") { try graphSource(.tone(frequencyHz: 1_000)) }

    // Therapy stimuli: 10 Hz AM pink noise, ½-octave narrow-band noise, pulsed audiometry tones.
    streamBenchmark("am-pink-10Hz-stereo") {
        try graphSource(.noise(colour: .pink, distribution: .gaussian), modulation: Modulation(rateHz: 10))
    }
    for centre in [1_000.0, 4_000] {
        streamBenchmark("nbn-\(Int(centre))Hz-half-octave-stereo") {
            try graphSource(.narrowBandNoise(centreHz: centre, widthOctaves: 0.5))
        }
    }
    // Notched noise for the catalogue: a player pulls it through the notch filter.
    for centre in [500.0, 4_000] {
        streamBenchmark("notched-white-\(Int(centre))Hz-1oct-stereo") {
            try graphSource(.noise(colour: .white, distribution: .gaussian), notches: [NotchSpec(centreHz: centre, widthOctaves: 1)])
        }
    }
    // Through the source graph: a render request's stream (notch → AM per ear, signals placed in the ears),
    // and a texture's mix of layers with swells.
    streamBenchmark("graph-pink-am10-notched-6kHz-stereo") {
        try graphSource(.noise(colour: .pink, distribution: .gaussian), modulation: Modulation(rateHz: 10),
                        notches: [NotchSpec(centreHz: 6_000)])
    }
    streamBenchmark("mix-surf-swells-stereo") {
        try graphSource(.mix([
            Layer(Sound(.generator(.noise(colour: .brown, distribution: .gaussian)), swell: Swell(periodSeconds: 10, depth: 0.8))),
            Layer(Sound(.generator(.noise(colour: .pink, distribution: .gaussian)), swell: Swell(periodSeconds: 10, depth: 0.9), seed: 2),
                  gainDB: -6),
        ]))
    }
    // The newer therapy stimuli: coordinated reset (Tass 2012) and spectral-ripple modulation (Yukhnovich 2025).
    streamBenchmark("coordinated-reset-4kHz-stereo") {
        try graphSource(.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4_000)), layout: .diotic)
    }
    streamBenchmark("spectral-ripple-4kHz-amplitude-stereo") {
        try graphSource(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000)), layout: .diotic, levelDBFS: -30)
    }
    // The generative sounds: binaural beats, an isochronic tone, velvet noise, fractal tones (issue 24).
    streamBenchmark("binaural-200Hz-10Hz-stereo") { try graphSource(.binauralBeat(carrierHz: 200, beatHz: 10)) }
    streamBenchmark("isochronic-200Hz-10Hz-stereo") {
        try graphSource(.isochronicTone(frequencyHz: 200, rateHz: 10, duty: 0.5, rampSeconds: 0.005), layout: .diotic)
    }
    streamBenchmark("velvet-2000-stereo") { try graphSource(.velvetNoise(densityHz: 2_000)) }
    streamBenchmark("fractal-pentatonic-stereo") { try graphSource(.fractalTones(tempoBPM: 240), layout: .diotic) }
    // The real-time player: voices crossfaded, added and removed during the run (no allocation either).
    streamBenchmark("player-engine-crossfading-stereo") { try ScheduledEngineSource() }
    streamBenchmark("pulsed-tone-1kHz-stereo") {
        try graphSource(.tone(frequencyHz: 1_000), pulses: Pulses())
    }

    if ShadesBench.selfTest {
        // Must fail `thresholds check`: every render call allocates.
        streamBenchmark("selftest-allocating") {
            AllocatingSource(try graphSource(.tone(frequencyHz: 1_000)))
        }
    }

    // The notch filter alone, one channel: 1 and ½ octave at 500 Hz, 4 kHz and 12 kHz.
    for centre in [500.0, 4_000, 12_000] {
        for width in [1.0, 0.5] {
            notchFilterBenchmark(centre: centre, width: width)
        }
    }

    // Whole-file render in memory: 60 s stereo pink, streamed and as a seamless loop.
    rendererBenchmark("pink-60s-stereo", RenderRequest(
        sound: Sound(.noise(colour: .pink, distribution: .gaussian)), durationSeconds: 60, sampleRate: sampleRate,
        layout: .stereo))
    rendererBenchmark("pink-60s-stereo-loop", RenderRequest(
        sound: Sound(.noise(colour: .pink, distribution: .gaussian)), durationSeconds: 60, sampleRate: sampleRate,
        layout: .stereo, loop: true))
}

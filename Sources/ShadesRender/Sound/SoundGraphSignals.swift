import Dispatch
import ShadesPlatform
import ShadesDSP

extension SoundGraph {
    /// Runs `body` for 0..<count on parallel threads and collects the results in order.
    static func inParallel<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = ResultSlots<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { results[$0] = body($0) }
        return results.values
    }

    /// `count` mono signals of `frames` frames, each filled whole by `fill` (signals in parallel).
    package static func synthesise(_ count: Int, frames: Int,
                                   _ fill: @escaping @Sendable (_ signal: Int, UnsafeMutableBufferPointer<Float>) -> Void) -> [AudioBuffer] {
        inParallel(count) { s -> AudioBuffer in
            let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
            buffer.withChannel(0) { fill(s, $0) }
            return buffer
        }
    }

    /// Sources playing rendered signals back, and their measurements (chunked, as pass 1 measures).
    /// (Keeping a long shaped-noise stream in memory instead of rendering it twice was measured: no
    /// faster on 2 cores, because fresh memory costs the kernel about as much as the second render.)
    static func playBack(_ buffers: [AudioBuffer], sampleRate: Double)
        -> (@Sendable (Int) -> any AudioSource, [SignalMeasurement]) {
        let measurements = inParallel(buffers.count) { s in
            buffers[s].withChannel(0) { Renderer.measureChunked(UnsafeBufferPointer($0)) }
        }
        let shared = SharedBuffers(buffers: buffers)
        return ({ s in BufferSource(buffer: shared.buffers[s], sampleRate: sampleRate) }, measurements)
    }

    /// Σ sin²(2π·c·n) for n in 0..<N, exactly: N/2 − ½·Σ cos(4π·c·n).
    static func sineEnergy(cyclesPerSample c: Double, frames n: Int) -> Double {
        let theta = 4 * Double.pi * c
        let denominator = sin(theta / 2)
        // Σ cos(θn) = sin(Nθ/2)·cos((N−1)θ/2) / sin(θ/2)
        let cosineSum = abs(denominator) < 1e-300 ? Double(n)
            : sin(Double(n) * theta / 2) * cos(Double(n - 1) * theta / 2) / denominator
        return Double(n) / 2 - cosineSum / 2
    }

    /// Output channel that carries each signal first; other channels copy it or are silent.
    var firstChannel: [Int] {
        (0..<signalCount).map { s in channelMap.firstIndex(of: s)! }
    }
}

/// Rendered signals shared read-only by the passes.
final class SharedBuffers: @unchecked Sendable {
    let buffers: [AudioBuffer]
    init(buffers: [AudioBuffer]) { self.buffers = buffers }
}

import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffer holding `channels` (all of the same length).
package func buffer(_ channels: [[Float]]) -> AudioBuffer {
    let result = AudioBuffer(channelCount: channels.count, frameCapacity: channels[0].count)
    for (c, samples) in channels.enumerated() {
        result.withChannel(c) { out in for (i, x) in samples.enumerated() { out[i] = x } }
    }
    return result
}

/// A sine of `frequencyHz` at RMS `levelDBFS`, `frames` long.
package func sine(frequencyHz: Double, levelDBFS: Double, frames: Int, sampleRate: Double = 48_000) -> [Float] {
    let amplitude = Decibels.amplitude(levelDBFS) * 2.0.squareRoot()
    return (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequencyHz * Double($0) / sampleRate)) }
}

/// Feeds `buffer` to `add` in blocks of pseudo-random sizes (1 … maxBlock).
package func feedInRandomBlocks(_ buffer: AudioBuffer, maxBlock: Int, seed: UInt64, _ add: (AudioBlock) -> Void) {
    var state = seed
    var done = 0
    while done < buffer.frameCapacity {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let size = min(buffer.frameCapacity - done, Int(state >> 33) % maxBlock + 1)
        buffer.withBlock(frames: done..<done + size) { add($0) }
        done += size
    }
}

extension AudioBuffer {
    /// Lends channel `channel`'s samples, read-only.
    package func withSamples<R>(channel: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try withChannel(channel) { try body(UnsafeBufferPointer($0)) }
    }
}

import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Renders `frames` frames in blocks of pseudo-random sizes (1 … maxBlock) from a fixed generator.
func renderInRandomBlocks(_ source: some AudioSource, frames: Int, maxBlock: Int, seed: UInt64) -> AudioBuffer {
    let buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: frames)
    var state = seed
    var done = 0
    while done < frames {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let size = min(frames - done, Int(state >> 33) % maxBlock + 1)
        buffer.withBlock(frames: done..<done + size) { source.render(into: $0) }
        done += size
    }
    return buffer
}

/// Log-spaced frequencies from `low` to `high` Hz, `perOctave` points per octave.
func logFrequencies(from low: Double, to high: Double, perOctave: Int = 24) -> [Double] {
    var result: [Double] = []
    var f = low
    while f <= high { result.append(f); f *= pow(2, 1 / Double(perOctave)) }
    result.append(high)
    return result
}

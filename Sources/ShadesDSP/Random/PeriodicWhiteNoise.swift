/// White noise that repeats every ``periodFrames`` frames: the stream of its key from its start, cut at
/// the period and started again. It is drawn in tiles of ``tileFrames`` from the period's start (the
/// last tile of a period is cut short), so its samples depend on the key and the period only.
/// Allocates nothing after `init`.
package final class PeriodicWhiteNoise {
    package let key: UInt64
    package let distribution: WhiteDistribution
    package let periodFrames: Int
    /// Frames drawn at a time (a multiple of 16, as ``WhiteNoise/fill(_:distribution:random:)`` needs).
    static let tileFrames = 4_096
    private var random: LaneRandom
    private let tile: UnsafeMutableBufferPointer<Float>
    /// Frames of the period drawn so far (the end of the current tile); the tile's unread part.
    private var drawn = 0, tileFill = 0, tileRead = 0

    /// Noise positioned at frame `startFrame` (0 ..< periodFrames) of its period.
    package init(key: UInt64, distribution: WhiteDistribution, periodFrames: Int, startFrame: Int = 0) {
        precondition(periodFrames > 0 && (0..<periodFrames).contains(startFrame))
        self.key = key
        self.distribution = distribution
        self.periodFrames = periodFrames
        random = LaneRandom(key: key)
        tile = .allocate(capacity: Self.tileFrames)
        tile.initialize(repeating: 0)
        // Draw (and drop) the tiles before the one holding `startFrame`.
        while drawn + Self.tileFrames <= startFrame { nextTile() }
        nextTile()
        tileRead = startFrame - (drawn - tileFill)
    }

    deinit { tile.deallocate() }

    /// Fills `output` with the next samples.
    package func fill(_ output: UnsafeMutableBufferPointer<Float>) {
        var done = 0
        while done < output.count {
            if tileRead == tileFill { nextTile() }
            let n = min(output.count - done, tileFill - tileRead)
            (output.baseAddress! + done).update(from: tile.baseAddress! + tileRead, count: n)
            tileRead += n
            done += n
        }
    }

    private func nextTile() {
        if drawn == periodFrames {
            random = LaneRandom(key: key)
            drawn = 0
        }
        let n = min(Self.tileFrames, periodFrames - drawn)
        WhiteNoise.fill(UnsafeMutableBufferPointer(rebasing: tile[0..<(n + 15) / 16 * 16]), distribution: distribution, random: &random)
        (tileFill, tileRead) = (n, 0)
        drawn += n
    }
}

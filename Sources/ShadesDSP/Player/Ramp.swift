import ShadesPlatform

/// A value moving from one level to another over a number of frames in a given shape; computed from
/// the frame count into the move (in Double), so the values do not depend on how the frames are split.
struct Ramp {
    enum Shape { case linear, raisedCosine, equalPowerIn, equalPowerOut }
    private(set) var from: Float
    private(set) var to: Float
    private var frames: Int
    private var elapsed: Int
    private var shape: Shape

    init(value: Float) { (from, to, frames, elapsed, shape) = (value, value, 0, 0, .linear) }

    init(from: Float, to: Float, frames: Int, shape: Shape) {
        (self.from, self.to, self.frames, self.elapsed, self.shape) = (from, to, frames, 0, shape)
    }

    var isSettled: Bool { elapsed >= frames }
    /// Frames until the move ends.
    var remainingFrames: Int { max(0, frames - elapsed) }
    /// The value now.
    var current: Float { value(at: elapsed) }

    /// Starts a move from the current value to `target` over `frames` frames.
    mutating func move(to target: Float, frames: Int, shape: Shape) {
        from = current
        to = target
        self.frames = frames
        elapsed = 0
        self.shape = shape
    }

    /// The value for this frame; advances one frame.
    mutating func next() -> Float {
        guard elapsed < frames else { return to }
        let v = value(at: elapsed)
        elapsed += 1
        return v
    }

    private func value(at k: Int) -> Float {
        guard k < frames else { return to }
        let t = Double(k) / Double(frames)
        let w: Double
        switch shape {
        case .linear: w = t
        case .raisedCosine: w = (1 - cos(Double.pi * t)) / 2
        case .equalPowerIn: w = sin(Double.pi / 2 * t)
        case .equalPowerOut: w = 1 - cos(Double.pi / 2 * t)
        }
        return Float(Double(from) + (Double(to) - Double(from)) * w)
    }
}

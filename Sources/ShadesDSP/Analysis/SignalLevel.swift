/// Level measurements of sample buffers (Double accumulation).
public enum SignalLevel {
    /// Root mean square (linear, full scale 1.0).
    public static func rms(_ samples: UnsafeBufferPointer<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (sumOfSquares(samples) / Double(samples.count)).squareRoot()
    }

    /// Σx² in Double.
    public static func sumOfSquares(_ samples: UnsafeBufferPointer<Float>) -> Double { measure(samples).sumOfSquares }

    /// Largest absolute sample value.
    public static func peak(_ samples: UnsafeBufferPointer<Float>) -> Float { measure(samples).peak }

    /// Σx² (in Double, from 8-lane Float partial sums over 1,024 samples) and the largest |x|, in one pass.
    public static func measure(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Double, peak: Float) {
        guard let base = samples.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(base)
        let n = samples.count
        var total = 0.0
        // |x| as bits: for non-negative floats the integer order is the float order.
        var peakBits = SIMD8<Int32>()
        var i = 0
        while i + 8 <= n {
            let end = min(n - (n - i) % 8, i + 1024)
            // Two partial sums, so each add waits on the one before last (the chain was the cost).
            var partial = (SIMD8<Float>(), SIMD8<Float>())
            var odd = false
            while i < end {
                let x = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                if odd { partial.1.addProduct(x, x) } else { partial.0.addProduct(x, x) }
                odd.toggle()
                let magnitude = unsafeBitCast(x, to: SIMD8<Int32>.self) & 0x7FFF_FFFF
                let difference = peakBits &- magnitude
                peakBits = peakBits &- (difference & (difference &>> 31))  // max without a select
                i += 8
            }
            total += Double((partial.0 + partial.1).sum())
        }
        var peak: Float = 0
        for lane in 0..<8 { peak = max(peak, Float(bitPattern: UInt32(peakBits[lane]))) }
        while i < n { total += Double(samples[i]) * Double(samples[i]); peak = max(peak, abs(samples[i])); i += 1 }
        return (total, peak)
    }

    /// RMS in dBFS.
    public static func rmsDBFS(_ samples: UnsafeBufferPointer<Float>) -> Double { Decibels.fromAmplitude(rms(samples)) }
}

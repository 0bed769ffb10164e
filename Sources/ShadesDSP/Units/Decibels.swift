import ShadesPlatform

/// Decibel conversions. Amplitudes and powers are linear; decibels are relative to full scale (1.0).
package enum Decibels {
    /// Linear amplitude of `decibels` dB (20·log10 scale).
    @inlinable package static func amplitude(_ decibels: Double) -> Double { pow(10, decibels / 20) }
    /// dB of a linear amplitude.
    @inlinable package static func fromAmplitude(_ amplitude: Double) -> Double { 20 * log10(amplitude) }
    /// Linear power of `decibels` dB (10·log10 scale).
    @inlinable package static func power(_ decibels: Double) -> Double { pow(10, decibels / 10) }
    /// dB of a linear power.
    @inlinable package static func fromPower(_ power: Double) -> Double { 10 * log10(power) }
}

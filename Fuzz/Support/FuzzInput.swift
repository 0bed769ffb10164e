#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fuzzer's input read front to back as typed values; past the end every value reads as zero, so any
/// input (including an empty one) is a valid program for a target.
public struct FuzzInput {
    public let bytes: UnsafeBufferPointer<UInt8>
    /// Bytes consumed so far.
    public private(set) var offset = 0

    /// Wraps libFuzzer's `data` and `size` (valid for one call of `LLVMFuzzerTestOneInput`).
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// Bytes not read yet.
    public var remaining: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[min(offset, bytes.count)...]) }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Two bytes, little-endian: 0 … 65,535.
    public mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }

    /// Four bytes, little-endian.
    public mutating func uint32() -> UInt32 { UInt32(uint16()) | UInt32(uint16()) << 16 }

    /// Four bytes as a Float's bit pattern: every NaN, infinity, denormal and signed zero is reachable.
    public mutating func floatBits() -> Float { Float(bitPattern: uint32()) }

    /// One of `options`, chosen by the next byte.
    public mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    /// The bytes not read yet, consumed.
    public mutating func takeRest() -> UnsafeBufferPointer<UInt8> {
        defer { offset = bytes.count }
        return remaining
    }
}

/// Stops the run with a message when an invariant fails: libFuzzer saves the input as a crash.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    let text = "fuzz invariant failed: \(message())\n"
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// Floats that are hard on numeric code: NaN (quiet and signalling, both signs), infinities, the smallest
/// and largest denormals, the extremes of the finite range, signed zeros and full scale.
public let hostileFloats: [Float] = [
    .nan, -.nan, .signalingNaN, .infinity, -.infinity,
    .leastNonzeroMagnitude, -.leastNonzeroMagnitude, Float(bitPattern: 0x007F_FFFF), -Float(bitPattern: 0x007F_FFFF),
    .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0, -0.0, 1, -1, 1 - 1.0 / 32_768,
]

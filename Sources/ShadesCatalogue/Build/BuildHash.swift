import ShadesDSP
import ShadesPlatform

/// SHA-256 (FIPS 180-4), fed in pieces; for the file hashes in the manifest and the build cache keys.
///
/// With the CPU's SHA extensions (x86-64: `Kernels.sha256Blocks`) about 1 GB/s here; without them plain
/// Swift, about 200–300 MB/s (a 5-minute stereo 24-bit song, 86 MB, took a third of a second).
package struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    private var pending: [UInt8] = []
    private var byteCount: UInt64 = 0

    package init() { pending.reserveCapacity(64) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        byteCount &+= UInt64(bytes.count)
        var i = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            i = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0.baseAddress!) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - i) / 64
        if whole > 0 && withUnsafeMutableBytes(of: &state, { state in
            Kernels.sha256Blocks(state.baseAddress!.assumingMemoryBound(to: UInt32.self), bytes.baseAddress! + i, count: whole)
        }) {
            i += 64 * whole
        }
        while i + 64 <= bytes.count {
            compress(bytes.baseAddress! + i)
            i += 64
        }
        if i < bytes.count { pending.append(contentsOf: bytes[i...]) }
    }

    /// Adds `bytes` to the message.
    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest (the hasher is consumed; start a new one for another message).
    package consuming func finalize() -> [UInt8] {
        let bits = byteCount &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (55 &- pending.count) & 63)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        let saved = byteCount
        tail.withUnsafeBytes { update($0) }
        byteCount = saved
        precondition(pending.isEmpty)
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { w in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: w >> UInt32($0)) } }
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hexString(hasher.finalize())
    }

    /// The digest of the file at `path` as 64 lowercase hex digits, read in 1 MiB pieces; nil when unreadable
    /// or not a regular file (opened without waiting: a FIFO would block a plain open until a writer came).
    package static func hex(ofFile path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let file = fdopen(descriptor, "rb") else { close(descriptor); return nil }
        defer { fclose(file) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        while true {
            let got = fread(buffer.baseAddress, 1, size, file)
            if got > 0 { hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got])) }
            if got < size { break }
        }
        guard ferror(file) == 0 else { return nil }
        return hexString(hasher.finalize())
    }

    /// `digest` as lowercase hex digits.
    package static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for b in digest { text.append(digits[Int(b >> 4)]); text.append(digits[Int(b & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// One 64-byte block (FIPS 180-4 §6.2.2).
    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            // Eight rounds per step with the roles rotated by argument order instead of moving eight values
            // each round (the AVX-512 build kept the moving values in a vector register: 60 % slower).
            Self.k.withUnsafeBufferPointer { k in
                for t in stride(from: 0, to: 64, by: 8) {
                    round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
                    round(h, a, b, &c, d, e, f, &g, k[t + 1] &+ w[t + 1])
                    round(g, h, a, &b, c, d, e, &f, k[t + 2] &+ w[t + 2])
                    round(f, g, h, &a, b, c, d, &e, k[t + 3] &+ w[t + 3])
                    round(e, f, g, &h, a, b, c, &d, k[t + 4] &+ w[t + 4])
                    round(d, e, f, &g, h, a, b, &c, k[t + 5] &+ w[t + 5])
                    round(c, d, e, &f, g, h, a, &b, k[t + 6] &+ w[t + 6])
                    round(b, c, d, &e, f, g, h, &a, k[t + 7] &+ w[t + 7])
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                     state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

@inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

/// One SHA-256 round (FIPS 180-4, 6.2.2 step 3) with the eight working variables in their roles for this
/// round: d += T1 and h = T1 + T2; `kw` is K[t] + W[t].
@inline(__always) private func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                                     _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
    let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ kw
    let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
    d = d &+ t1
    h = t1 &+ t2
}

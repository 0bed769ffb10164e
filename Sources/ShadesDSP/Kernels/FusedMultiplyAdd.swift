extension SIMD where Scalar: FloatingPoint {
    /// self += a · b (fused).
    @inline(__always) mutating func addProduct(_ a: Scalar, _ b: Self) {
        self = self.addingProduct(a, b)
    }

    /// self += a · b elementwise (fused).
    @inline(__always) mutating func addProduct(_ a: Self, _ b: Self) {
        self = self.addingProduct(a, b)
    }
}

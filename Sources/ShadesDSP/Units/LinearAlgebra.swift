/// Small dense linear algebra for filter design and fitting.
package enum LinearAlgebra {
    /// Solves the p×p system `matrix`·x = `right` (row-major) by Gaussian elimination with partial
    /// pivoting; zeros if the matrix is singular.
    package static func solve(_ matrix: [Double], _ right: [Double], size p: Int) -> [Double] {
        var a = matrix, b = right
        for column in 0..<p {
            let pivot = (column..<p).max { abs(a[$0 * p + column]) < abs(a[$1 * p + column]) }!
            guard a[pivot * p + column] != 0 else { return [Double](repeating: 0, count: p) }
            if pivot != column {
                for q in 0..<p { a.swapAt(pivot * p + q, column * p + q) }
                b.swapAt(pivot, column)
            }
            for row in column + 1..<p {
                let factor = a[row * p + column] / a[column * p + column]
                for q in column..<p { a[row * p + q] -= factor * a[column * p + q] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: p)
        for row in stride(from: p - 1, through: 0, by: -1) {
            var sum = b[row]
            for q in row + 1..<p { sum -= a[row * p + q] * x[q] }
            x[row] = sum / a[row * p + row]
        }
        return x
    }
}

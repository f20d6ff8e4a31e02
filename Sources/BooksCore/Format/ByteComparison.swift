import Glibc

/// Byte-array equality and common prefix/suffix lengths at `memcmp` speed (`Array ==` compares
/// element by element).
public enum ByteComparison {
    /// True when `a` and `b` hold the same bytes.
    @inline(__always)
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0
            }
        }
    }

    /// The length of the longest common prefix of `a[0..<n]` and `b[0..<n]`.
    public static func commonPrefix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
        if n > 0, memcmp(a, b, n) == 0 { return n }
        let block = 4096
        var i = 0
        while i + block <= n, memcmp(a + i, b + i, block) == 0 { i += block }
        while i < n, a[i] == b[i] { i += 1 }
        return i
    }

    /// The length (at most `limit`) of the longest common suffix of `a[0..<na]` and `b[0..<nb]`.
    public static func commonSuffix(
        _ a: UnsafePointer<UInt8>, _ na: Int, _ b: UnsafePointer<UInt8>, _ nb: Int,
        limit: Int
    ) -> Int {
        let block = 4096
        var s = 0
        while s + block <= limit, memcmp(a + na - s - block, b + nb - s - block, block) == 0 { s += block }
        while s < limit, a[na - s - 1] == b[nb - s - 1] { s += 1 }
        return s
    }

    /// The lengths of the common prefix and of the common suffix of `old` and `new`, the suffix not
    /// overlapping the prefix in either (so `prefix + suffix <= min(old.count, new.count)`).
    public static func commonEnds(_ old: [UInt8], _ new: [UInt8]) -> (prefix: Int, suffix: Int) {
        old.withUnsafeBufferPointer { a in
            new.withUnsafeBufferPointer { b in
                guard let x = a.baseAddress, let y = b.baseAddress else { return (0, 0) }
                let shorter = min(a.count, b.count)
                let prefix = commonPrefix(x, y, shorter)
                return (prefix, commonSuffix(x, a.count, y, b.count, limit: shorter - prefix))
            }
        }
    }
}

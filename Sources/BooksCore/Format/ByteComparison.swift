import Glibc

/// Byte-array equality at `memcmp` speed (`Array ==` compares element by element).
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
}

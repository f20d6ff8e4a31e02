import Glibc

/// Substring search for filter conditions: by bytes (`memchr` + `memcmp`) when both strings are
/// ASCII without a carriage return, otherwise by Characters (`String.contains`).
///
/// Guarantee: the result always equals `haystack.contains(needle)` with Character semantics. In
/// ASCII every scalar is one byte, has no decomposition and combines with nothing, and every two
/// ASCII scalars are separate Characters except CR LF (one Character, hence CR is excluded): so a
/// byte match is exactly a Character match. The byte path is what makes a filter over a large
/// file affordable (the Character search costs microseconds per short field).
enum TextSearch {
    /// True when `needle` occurs in `haystack` (an empty needle occurs everywhere).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        if needle.isEmpty { return true }
        var h = haystack
        var n = needle
        let byBytes: Bool? = h.withUTF8 { hay in
            n.withUTF8 { pin in
                guard isPlainASCII(hay), isPlainASCII(pin) else { return nil }
                return occurs(pin, in: hay)
            }
        }
        return byBytes ?? haystack.contains(needle)
    }

    /// ASCII without CR.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 || byte == 0x0D { return false }
        return true
    }

    /// True when `needle` (non-empty) occurs in `haystack`, byte for byte.
    static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let pin = needle.baseAddress, let hay = haystack.baseAddress, needle.count <= haystack.count else {
            return false
        }
        let first = Int32(pin.pointee)
        var start = 0
        let lastStart = haystack.count - needle.count
        while start <= lastStart {
            guard let hit = memchr(hay + start, first, lastStart - start + 1) else { return false }
            let at = hay.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(hay + at, pin, needle.count) == 0 { return true }
            start = at + 1
        }
        return false
    }
}

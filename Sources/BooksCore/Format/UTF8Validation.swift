/// Strict UTF-8 validation (no overlongs, no surrogates, nothing above U+10FFFF) with an ASCII fast path.
enum UTF8Validation {
    /// True when `bytes[start..<end]` is valid UTF-8.
    static func isValid(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        // ASCII fast path, eight bytes at a time.
        while i + 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < end {
            let b0 = base[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            if b0 < 0xC2 { return false }
            if b0 < 0xE0 {
                guard i + 1 < end, base[i + 1] & 0xC0 == 0x80 else { return false }
                i += 2
                continue
            }
            if b0 < 0xF0 {
                guard i + 2 < end else { return false }
                let b1 = base[i + 1]
                let b2 = base[i + 2]
                guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return false }
                if b0 == 0xE0 && b1 < 0xA0 { return false }  // overlong
                if b0 == 0xED && b1 >= 0xA0 { return false }  // surrogates
                i += 3
                continue
            }
            if b0 < 0xF5 {
                guard i + 3 < end else { return false }
                let b1 = base[i + 1]
                let b2 = base[i + 2]
                let b3 = base[i + 3]
                guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80 else { return false }
                if b0 == 0xF0 && b1 < 0x90 { return false }  // overlong
                if b0 == 0xF4 && b1 >= 0x90 { return false }  // > U+10FFFF
                i += 4
                continue
            }
            return false
        }
        return true
    }
}

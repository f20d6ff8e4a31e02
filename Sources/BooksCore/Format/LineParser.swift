import Glibc

/// Classifies one line of the book file. Pure: it sees only the line's bytes.
///
/// Duplicate ids and two-field rows that name a known id are decided by `BookDocument`, which
/// knows the other lines; this parser reports such rows as `.book` / `.newBook`.
enum LineParser {
    static let pipe: UInt8 = 0x7C
    static let backslash: UInt8 = 0x5C

    /// Parses the line `[start, contentEnd)` of `base` (`contentEnd` excludes `\r\n` / `\n`).
    static func parse(
        _ base: UnsafePointer<UInt8>, start: Int, contentEnd: Int,
        hasCR: Bool, hasNewline: Bool, lineLimit: Int
    ) -> LineRecord {
        let length = contentEnd - start
        var record = LineRecord(
            start: start, length: UInt32(truncatingIfNeeded: length), separator1: 0,
            separator2: 0, kind: .blank, escaped: false, hasCR: hasCR, hasNewline: hasNewline)
        if length > min(lineLimit, LineRecord.maximumSeparatorOffset) {
            record.kind = .badTooLong
            return record
        }
        var firstNonSpace = start
        while firstNonSpace < contentEnd, base[firstNonSpace] == 0x20 || base[firstNonSpace] == 0x09 {
            firstNonSpace += 1
        }
        if firstNonSpace == contentEnd {
            record.kind = .blank
            return record
        }
        if base[firstNonSpace] == UInt8(ascii: "#") {
            record.kind = .comment
            return record
        }
        // One pass over the line, eight bytes at a time: find up to three separators, and note
        // backslashes (escape-aware rescan) and non-ASCII bytes (UTF-8 validation) on the way.
        var separators = (0, 0)
        var count = 0
        var nonASCII = false
        var escaped = false
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let pipes: UInt64 = 0x7C7C_7C7C_7C7C_7C7C
        let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
        scan: while i < contentEnd {
            var stop = min(i + 8, contentEnd)
            if stop - i == 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & highs != 0 { nonASCII = true }
                let p = word ^ pipes
                let b = word ^ backslashes
                if ((p &- ones) & ~p & highs) | ((b &- ones) & ~b & highs) == 0 {
                    i += 8
                    continue
                }
            } else {
                stop = contentEnd
            }
            while i < stop {
                let byte = base[i]
                if byte == pipe {
                    count += 1
                    if count == 1 {
                        separators.0 = i - start
                    } else if count == 2 {
                        separators.1 = i - start
                    } else {
                        nonASCII = true  // bad anyway; validate so the reason does not depend on where we stopped
                        break scan
                    }
                } else if byte == backslash {
                    escaped = true
                    break scan
                } else if byte >= 0x80 {
                    nonASCII = true
                }
                i += 1
            }
        }
        if nonASCII || escaped, !UTF8Validation.isValid(base, start, contentEnd) {
            record.kind = .badUTF8
            return record
        }
        if escaped {
            record.escaped = true
            separators = (0, 0)
            count = 0
            var k = start
            while k < contentEnd, count < 3 {
                let b = base[k]
                if b == backslash {
                    k += 2
                    continue
                }
                if b == pipe {
                    count += 1
                    if count == 1 { separators.0 = k - start } else if count == 2 { separators.1 = k - start }
                }
                k += 1
            }
        }
        record.separator1 = UInt32(separators.0)
        record.separator2 = UInt32(separators.1)
        switch count {
        case 2: record.kind = separators.0 == 0 ? .badEmptyID : .book
        case 1: record.kind = .newBook
        default: record.kind = .badFieldCount
        }
        return record
    }

    /// The number of fields of a line (for error messages).
    static func fieldCount(_ base: UnsafePointer<UInt8>, start: Int, end: Int) -> Int {
        var count = 1
        var i = start
        while i < end {
            if base[i] == backslash {
                i += 2
                continue
            }
            if base[i] == pipe { count += 1 }
            i += 1
        }
        return count
    }

    /// True when the bytes look like a generated id (a UUID: 36 characters, hex and dashes at 8-4-4-4-12).
    static func looksLikeUUID(_ base: UnsafePointer<UInt8>, start: Int, end: Int) -> Bool {
        guard end - start == 36 else { return false }
        for i in 0..<36 {
            let b = base[start + i]
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else {
                let isHex = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
                if !isHex { return false }
            }
        }
        return true
    }
}

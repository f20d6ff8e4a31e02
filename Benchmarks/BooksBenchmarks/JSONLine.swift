import BooksCore

/// Minimal field access for the flat JSON lines of `booksctl subscribe --json` and the peers
/// (`{"seq":1,"kind":"insert","id":"…",…}`): no Foundation, no full parser.
enum JSONLine {
    /// The value of string field `key` (escapes other than `\"` and `\\` are kept as written).
    static func string(_ key: String, in line: String) -> String? {
        let utf8 = Array(line.utf8)
        let needle = Array("\"\(key)\":".utf8)
        guard needle.count <= utf8.count else { return nil }
        var i = 0
        while i + needle.count <= utf8.count {
            if utf8[i] == needle[0], Array(utf8[i..<(i + needle.count)]) == needle {
                var j = i + needle.count
                while j < utf8.count, utf8[j] == UInt8(ascii: " ") { j += 1 }
                guard j < utf8.count, utf8[j] == UInt8(ascii: "\"") else { return nil }
                j += 1
                var value: [UInt8] = []
                while j < utf8.count, utf8[j] != UInt8(ascii: "\"") {
                    if utf8[j] == UInt8(ascii: "\\"), j + 1 < utf8.count { j += 1 }
                    value.append(utf8[j])
                    j += 1
                }
                return String(decoding: value, as: UTF8.self)
            }
            i += 1
        }
        return nil
    }
}

extension JSONLine {
    /// The value of integer field `key`.
    static func integer(_ key: String, in line: String) -> UInt64? {
        let utf8 = Array(line.utf8)
        let needle = Array("\"\(key)\":".utf8)
        guard needle.count <= utf8.count else { return nil }
        for i in 0...(utf8.count - needle.count) where Array(utf8[i..<(i + needle.count)]) == needle {
            var j = i + needle.count
            while j < utf8.count, utf8[j] == UInt8(ascii: " ") { j += 1 }
            var value: UInt64 = 0
            var digits = 0
            while j < utf8.count, utf8[j] >= 0x30, utf8[j] <= 0x39 {
                value = value * 10 + UInt64(utf8[j] - 0x30)
                j += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }

    /// `text` as a JSON string literal (the project's one escaper, `BooksCore.JSONText`).
    static func quoted(_ text: String) -> String { JSONText.string(text) }
}

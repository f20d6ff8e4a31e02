/// Fast JSON string output, shared by the JSON file format, the wire protocol and `booksctl`.
public enum JSONText {
    /// Appends `string` as a JSON string literal (quotes included): `"` and `\` escaped, control
    /// characters as `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`, U+2028 and U+2029 as `\u2028` and
    /// `\u2029` (so the output is also valid JavaScript), everything else as raw UTF-8. Runs of
    /// plain bytes are copied in one piece.
    public static func appendString(_ string: String, to out: inout [UInt8]) {
        var string = string
        out.append(0x22)
        string.withUTF8 { utf8 in
            var runStart = 0
            var i = 0
            let n = utf8.count
            while i < n {
                let b = utf8[i]
                let isLineSeparator =
                    b == 0xE2 && i + 2 < n && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9)
                if b >= 0x20 && b != 0x22 && b != 0x5C && !isLineSeparator {
                    i += 1
                    continue
                }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                out.append(0x5C)
                switch b {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0xE2:
                    out.append(contentsOf: Array("u202".utf8))
                    out.append(utf8[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                    i += 2
                default:
                    out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
                i += 1
                runStart = i
            }
            if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<n])) }
        }
        out.append(0x22)
    }

    /// `string` as a JSON string literal.
    public static func string(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count + 2)
        appendString(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Minimal, fast JSON text output shared by the file format and the wire protocol.
public enum JSONText {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string literal (quotes included): `"` and `\` escaped, control
    /// characters as `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`, everything else as raw UTF-8.
    public static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(0x22)
        var needsEscaping = false
        for byte in string.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C { needsEscaping = true; break }
        if !needsEscaping {
            out.append(contentsOf: string.utf8)
        } else {
            for byte in string.utf8 {
                switch byte {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
                case 0..<0x20:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                default: out.append(byte)
                }
            }
        }
        out.append(0x22)
    }
}

/// Makes text safe for one-line terminal output.
enum TextCell {
    /// Escapes backslash, tab, CR and newline, every other control character (C0, DEL, C1) and the
    /// characters that reorder or break displayed text (bidi controls, line and paragraph
    /// separators) as `\u{…}`, so that a value never breaks a line or a tab-separated column and
    /// never sends the terminal an escape sequence.
    static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || needsEscape($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if needsEscape(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `text` with each of its lines escaped (see `escape`) and the line breaks kept: for a
    /// message followed by a hint line.
    static func escapeLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(
            separator: "\n")
    }

    /// Control characters and the invisible characters that change how text is displayed.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (0x9B is CSI on many terminals)
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi controls
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}

/// How many terminal columns text takes (a small `wcwidth`, pure): East Asian wide and fullwidth
/// characters and emoji take two, combining marks, format characters (zero-width joiner,
/// variation selectors) and controls none, everything else one. Measured per grapheme cluster, so
/// `e` + U+0301 is one column and a family emoji joined by ZWJ, or a flag, is two.
enum DisplayWidth {
    /// The width of one scalar on its own (0, 1 or 2).
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(v) { return 0 }  // Hangul medial vowels and final consonants
        if isWide(v) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges.
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1F1E6...0x1F1FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// The width of one grapheme cluster: two when any of its scalars is wide or it asks for emoji
    /// presentation (U+FE0F), else the sum of its scalars' widths (at most two).
    static func of(_ character: Character) -> Int {
        var sum = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { return 2 }
            let w = of(scalar)
            if w == 2 { return 2 }
            sum += w
        }
        return min(sum, 2)
    }

    /// The width of `text`.
    static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `width` columns, ending in `…` when cut (whole characters only).
    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        var out = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` followed by spaces up to `width` columns (never cut).
    static func pad(_ text: String, to width: Int) -> String {
        let w = of(text)
        return w >= width ? text : text + String(repeating: " ", count: width - w)
    }
}

import FoundationEssentials

extension ISO8601 {
    /// Parses what `format` writes: `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (UTC; any number of fraction
    /// digits, of which the first six are kept). Returns nil for any other text, including
    /// out-of-range fields and time zone offsets. Pure arithmetic, like `format`.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ width: Int) -> Int64? {
            var value: Int64 = 0
            for i in start..<start + width {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int64(d)
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        for (index, char) in separators where b[index] != char.asciiValue { return nil }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var micros: Int64 = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count > 21 else { return nil }
            let digits = b.count - 21
            guard let fraction = number(20, min(digits, 6)) else { return nil }
            if digits > 6, number(26, digits - 6) == nil { return nil }
            micros = fraction
            for _ in 0..<max(0, 6 - digits) { micros *= 10 }
        } else if b[19] != UInt8(ascii: "Z") {
            return nil
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }
}

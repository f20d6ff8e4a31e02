import FoundationEssentials

/// ISO 8601 dates and date-times as people type them, for ``HistoryPoint``.
enum HistoryDateText {
    static let reason = "an ISO 8601 time is YYYY-MM-DD, optionally THH:MM[:SS[.fff]] and Z or an offset (+01:00)"

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff…]]][Z|±HH[[:]MM]]`; local in `zone` without an offset.
    static func parse(
        _ b: [UInt8], zone: HistoryTimeZone, fail: (String) -> HistoryPointError
    ) throws(HistoryPointError) -> Date {
        var i = 0
        func number(_ width: Int) throws(HistoryPointError) -> Int64 {
            guard i + width <= b.count else { throw fail(reason) }
            var value: Int64 = 0
            for k in i..<(i + width) {
                let d = b[k] &- UInt8(ascii: "0")
                guard d < 10 else { throw fail(reason) }
                value = value * 10 + Int64(d)
            }
            i += width
            return value
        }
        func expect(_ char: Character) throws(HistoryPointError) {
            guard i < b.count, b[i] == char.asciiValue else { throw fail(reason) }
            i += 1
        }
        let year = try number(4)
        try expect("-")
        let month = try number(2)
        try expect("-")
        let day = try number(2)
        guard CivilDate.isValid(year: year, month: month, day: day) else { throw fail("no such date") }
        var seconds = CivilDate.days(year: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") {
            i += 1
            let hour = try number(2)
            try expect(":")
            let minute = try number(2)
            var second: Int64 = 0
            if i < b.count, b[i] == UInt8(ascii: ":") {
                i += 1
                second = try number(2)
                if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    i += 1
                    let start = i
                    while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
                    guard i > start, let value = Double("0." + String(decoding: b[start..<i], as: UTF8.self))
                    else { throw fail(reason) }
                    fraction = value
                }
            }
            guard hour < 24, minute < 60, second < 60 else { throw fail("hours are 00-23, minutes and seconds 00-59") }
            seconds += hour * 3600 + minute * 60 + second
        }
        guard i < b.count else {
            return Date(timeIntervalSince1970: Double(zone.instant(local: seconds)) + fraction)
        }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
            guard i == b.count else { throw fail(reason) }
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        }
        guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { throw fail(reason) }
        let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
        i += 1
        let hours = try number(2)
        var minutes: Int64 = 0
        if i < b.count {
            if b[i] == UInt8(ascii: ":") { i += 1 }
            minutes = try number(2)
        }
        guard i == b.count else { throw fail(reason) }
        guard hours <= 18, minutes < 60 else { throw fail("an offset is at most ±18:00") }
        return Date(timeIntervalSince1970: Double(seconds - sign * (hours * 3600 + minutes * 60)) + fraction)
    }
}

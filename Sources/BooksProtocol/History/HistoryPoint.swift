import FoundationEssentials

/// A point in a store's history as a person writes it (booksctl's WHEN): an instant, a cursor
/// `EPOCH:SEQ`, or a seq of the daemon's current epoch.
///
/// ``parse(_:now:zone:)`` accepts `-10m`, `-2h`, `-3d` (also `s` and `w`; back from `now`),
/// `now`, `today` and `yesterday` (local midnight), an ISO 8601 date (`2026-12-01`, local
/// midnight) or date-time (`2026-12-01T08:30`, `…:15`, `….250`, a space for the `T`; local time
/// unless it ends in `Z` or an offset such as `+01:00`, `+0100` or `-05`), `EPOCH:SEQ` (the epoch a
/// UUID) and a plain decimal seq. Pure: the clock and the zone are parameters.
public enum HistoryPoint: Sendable, Hashable {
    /// An instant.
    case time(Date)
    /// A change set of a lineage: `seq` within `epoch`.
    case cursor(epoch: String, seq: UInt64)
    /// A change set of the daemon's current epoch.
    case seq(UInt64)

    /// The forms accepted, for error hints and help texts.
    public static let forms =
        "-10m, -2h, -3d, now, today, yesterday, 2026-12-01, 2026-12-01T08:30[:00][Z|+01:00], EPOCH:SEQ or a seq"

    /// Parses `text` (surrounding white space ignored); relative forms count back from `now`,
    /// named days and times without an offset are in `zone`.
    public static func parse(_ text: String, now: Date, zone: HistoryTimeZone) throws(HistoryPointError) -> HistoryPoint
    {
        let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        func fail(_ reason: String) -> HistoryPointError { HistoryPointError(text: text, reason: reason) }
        guard !trimmed.isEmpty else { throw fail("it is empty") }
        let bytes = Array(trimmed.utf8)
        if let seq = UInt64(trimmed) { return .seq(seq) }
        if bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            throw fail("the seq is too large")
        }
        switch trimmed.lowercased() {
        case "now": return .time(now)
        case "today": return .time(zone.startOfDay(now, daysBack: 0))
        case "yesterday": return .time(zone.startOfDay(now, daysBack: 1))
        default: break
        }
        if bytes.first == UInt8(ascii: "-") { return .time(try relative(bytes, now: now, fail: fail)) }
        if bytes.count >= 10, bytes[4] == UInt8(ascii: "-") {
            return .time(try HistoryDateText.parse(bytes, zone: zone, fail: fail))
        }
        if let colon = trimmed.lastIndex(of: ":") {
            let epoch = String(trimmed[..<colon])
            guard isEpoch(epoch) else { throw fail("the epoch of EPOCH:SEQ is a UUID (booksctl status shows it)") }
            guard let seq = UInt64(trimmed[trimmed.index(after: colon)...]) else {
                throw fail("the SEQ of EPOCH:SEQ is a decimal number")
            }
            return .cursor(epoch: epoch, seq: seq)
        }
        throw fail("not a time, a cursor or a seq")
    }

    /// True when `epoch` has the shape of the epochs booksd makes: a UUID
    /// (`XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`, hexadecimal digits in either case).
    public static func isEpoch(_ epoch: String) -> Bool {
        let utf8 = Array(epoch.utf8)
        guard utf8.count == 36 else { return false }
        return utf8.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : Character(Unicode.Scalar(byte)).isHexDigit
        }
    }

    /// `-N` followed by a unit: s, m, h, d or w.
    private static func relative(
        _ bytes: [UInt8], now: Date, fail: (String) -> HistoryPointError
    ) throws(HistoryPointError) -> Date {
        let reason = "a relative time is -N and a unit: s, m, h, d or w (e.g. -10m, -2h, -3d)"
        guard bytes.count >= 3, let unit = bytes.last else { throw fail(reason) }
        let seconds: Int64
        switch unit {
        case UInt8(ascii: "s"): seconds = 1
        case UInt8(ascii: "m"): seconds = 60
        case UInt8(ascii: "h"): seconds = 3600
        case UInt8(ascii: "d"): seconds = 86_400
        case UInt8(ascii: "w"): seconds = 604_800
        default: throw fail(reason)
        }
        let digits = bytes[1..<(bytes.count - 1)]
        guard digits.count <= 9, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let count = Int64(String(decoding: digits, as: UTF8.self))
        else { throw fail(reason) }
        return now.addingTimeInterval(-Double(count * seconds))
    }
}

/// Why a WHEN could not be read: the text, the reason, and the forms that are accepted.
public struct HistoryPointError: Error, Hashable, CustomStringConvertible {
    /// The text given.
    public var text: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    /// `'TEXT' is not a WHEN: REASON` and, on a line of its own, the forms accepted.
    public var description: String {
        "'\(text)' is not a WHEN: \(reason)\nhint: WHEN is \(HistoryPoint.forms)"
    }
}

import FoundationEssentials

/// The local time zone as WHEN parsing needs it: the UTC offset in effect at an instant.
///
/// A parameter (not the process's zone) so parsing is pure and testable; booksctl passes the
/// system zone (`localtime_r`). Local times in a daylight-saving gap or overlap resolve to the
/// offset in effect just before the change.
public struct HistoryTimeZone: Sendable {
    /// Seconds east of UTC in effect at `secondsSince1970`.
    public let offsetAt: @Sendable (Int64) -> Int64

    /// A zone given by its offset function.
    public init(offsetAt: @escaping @Sendable (Int64) -> Int64) {
        self.offsetAt = offsetAt
    }

    /// A zone with a fixed offset (seconds east of UTC).
    public static func fixed(_ seconds: Int64) -> HistoryTimeZone { HistoryTimeZone { _ in seconds } }

    /// UTC.
    public static let utc = fixed(0)

    /// The instant (seconds since 1970, UTC) of local wall-clock time `local` (seconds since
    /// 1970 read as local time).
    public func instant(local: Int64) -> Int64 {
        let guess = local - offsetAt(local)
        return local - offsetAt(guess)
    }

    /// Local midnight of the day `daysBack` days before the local day of `now`.
    public func startOfDay(_ now: Date, daysBack: Int64) -> Date {
        let utc = Int64(now.timeIntervalSince1970.rounded(.down))
        let local = utc + offsetAt(utc)
        let day = (local >= 0 ? local / 86_400 : (local - 86_399) / 86_400) - daysBack
        return Date(timeIntervalSince1970: Double(instant(local: day * 86_400)))
    }
}

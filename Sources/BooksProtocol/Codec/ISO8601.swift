import FoundationEssentials

/// ISO 8601 timestamps as the protocol writes them: UTC with milliseconds,
/// e.g. `2026-11-30T08:30:55.123Z`.
public enum ISO8601 {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds truncated toward the past).
    /// Pure arithmetic: thread-safe, no locale or time zone database involved.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let clamped = seconds.isFinite ? max(min(seconds, 253_402_300_799.999), -62_135_596_800) : 0
        // Round to whole microseconds first so that binary noise (-0.001 s stored as
        // -0.0010000000002) does not move the millisecond.
        let micros = Int64((clamped * 1_000_000).rounded())
        let millis = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000)
        var days = millis / 86_400_000
        var msOfDay = millis % 86_400_000
        if msOfDay < 0 {
            msOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(days)

        var out: [UInt8] = []
        out.reserveCapacity(24)
        func put(_ value: Int64, _ width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var v = value
            var i = width - 1
            while i >= 0 {
                digits[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                i -= 1
            }
            out.append(contentsOf: digits)
        }
        put(year, 4)
        out.append(UInt8(ascii: "-"))
        put(month, 2)
        out.append(UInt8(ascii: "-"))
        put(day, 2)
        out.append(UInt8(ascii: "T"))
        put(msOfDay / 3_600_000, 2)
        out.append(UInt8(ascii: ":"))
        put(msOfDay / 60_000 % 60, 2)
        out.append(UInt8(ascii: ":"))
        put(msOfDay / 1000 % 60, 2)
        out.append(UInt8(ascii: "."))
        put(msOfDay % 1000, 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}

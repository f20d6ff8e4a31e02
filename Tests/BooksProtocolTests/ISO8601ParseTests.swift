import BooksProtocol
import FoundationEssentials
import Testing

@Suite struct ISO8601ParseTests {
    @Test func parsesWhatTheDaemonWrites() {
        // 2026-01-01T00:00:00Z: 56 years of 365 days plus 14 leap days after 1970.
        #expect(ISO8601.parse("2026-01-01T00:00:00.000Z") == Date(timeIntervalSince1970: 20_454 * 86_400))
        #expect(ISO8601.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(ISO8601.parse("1969-12-31T23:59:59.5Z") == Date(timeIntervalSince1970: -0.5))
        #expect(ISO8601.parse("2024-02-29T12:34:56.123456789Z")?.timeIntervalSince1970 == 1_709_210_096.123456)
    }

    /// Exact within ±4e9 s of 1970 (years 1843 to 2096): `format` rounds to whole microseconds,
    /// which a Double times 10⁶ no longer resolves near 2⁵³ µs (years 1685 and 2255).
    @Test func roundTripsFormat() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let millis = Int64.random(in: -4_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let text = ISO8601.format(date)
            #expect(ISO8601.parse(text).map(ISO8601.format) == text, "\(text)")
        }
    }

    @Test(arguments: [
        "", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01T00:00:00+01:00", "2026-13-01T00:00:00Z",
        "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1x2Z", "20x6-01-01T00:00:00Z", "2026-01-01T00:00:00.1234567x9Z",
    ])
    func rejectsOtherText(_ text: String) {
        #expect(ISO8601.parse(text) == nil)
    }
}

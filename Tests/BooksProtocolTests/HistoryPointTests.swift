import BooksProtocol
import FoundationEssentials
import Testing

@Suite struct HistoryPointTests {
    /// 2026-12-01T10:30:00Z, a Tuesday.
    let now = Date(timeIntervalSince1970: 1_796_121_000)
    let berlin = HistoryTimeZone.fixed(3600)

    func time(_ text: String, zone: HistoryTimeZone = .utc) throws -> Date? {
        guard case .time(let date) = try HistoryPoint.parse(text, now: now, zone: zone) else { return nil }
        return date
    }

    func utc(_ iso: String) -> Date? { ISO8601.parse(iso) }

    @Test func relativeTimesCountBackFromNow() throws {
        #expect(try time("-10m") == now.addingTimeInterval(-600))
        #expect(try time("-2h") == now.addingTimeInterval(-7200))
        #expect(try time("-3d") == now.addingTimeInterval(-3 * 86_400))
        #expect(try time(" -45s ") == now.addingTimeInterval(-45))
        #expect(try time("-1w") == now.addingTimeInterval(-604_800))
        #expect(try time("now") == now)
    }

    @Test func namedDaysAreLocalMidnight() throws {
        #expect(try time("today") == utc("2026-12-01T00:00:00Z"))
        #expect(try time("yesterday") == utc("2026-11-30T00:00:00Z"))
        #expect(try time("Today", zone: berlin) == utc("2026-11-30T23:00:00Z"))
        // 10:30 UTC is already tomorrow at UTC+14, and still the day before at UTC-11.
        #expect(try time("today", zone: .fixed(14 * 3600)) == utc("2026-12-01T10:00:00Z"))
        #expect(try time("yesterday", zone: .fixed(-11 * 3600)) == utc("2026-11-29T11:00:00Z"))
    }

    @Test func isoDatesAndTimes() throws {
        #expect(try time("2026-11-30") == utc("2026-11-30T00:00:00Z"))
        #expect(try time("2026-11-30", zone: berlin) == utc("2026-11-29T23:00:00Z"))
        #expect(try time("2026-11-30T08:15", zone: berlin) == utc("2026-11-30T07:15:00Z"))
        #expect(try time("2026-11-30 08:15:30", zone: berlin) == utc("2026-11-30T07:15:30Z"))
        #expect(try time("2026-11-30T08:15:30.250Z", zone: berlin) == utc("2026-11-30T08:15:30.250Z"))
        #expect(try time("2026-11-30T08:15:30+02:00", zone: berlin) == utc("2026-11-30T06:15:30Z"))
        #expect(try time("2026-11-30T08:15-0530") == utc("2026-11-30T13:45:00Z"))
        #expect(try time("2026-11-30T08:15:00-05") == utc("2026-11-30T13:15:00Z"))
        #expect(try time("2024-02-29T23:59:59z") == utc("2024-02-29T23:59:59Z"))
    }

    @Test func localTimesFollowTheZoneInEffectThen() throws {
        // A zone at +1 before 2026-03-29T01:00Z and +2 after (central European summer time).
        let switchover: Int64 = 1_774_746_000
        let cet = HistoryTimeZone { $0 < switchover ? 3600 : 7200 }
        #expect(try time("2026-03-28T12:00", zone: cet) == utc("2026-03-28T11:00:00Z"))
        #expect(try time("2026-03-30T12:00", zone: cet) == utc("2026-03-30T10:00:00Z"))
    }

    @Test func cursorsAndSeqs() throws {
        let epoch = "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90"
        #expect(try HistoryPoint.parse("\(epoch):17", now: now, zone: .utc) == .cursor(epoch: epoch, seq: 17))
        #expect(try HistoryPoint.parse("42", now: now, zone: .utc) == .seq(42))
        #expect(try HistoryPoint.parse("0", now: now, zone: .utc) == .seq(0))
    }

    @Test(arguments: [
        "", "  ", "soon", "-10", "-m", "-10x", "-1.5h", "--2h", "2026-02-30", "2026-13-01", "2026-11-30T24:00",
        "2026-11-30T08", "2026-11-30T08:15+19:00", "2026-11-30T08:15:30.", "2026-11-30T08:15Zoo", "bogus:3",
        "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90:x", "99999999999999999999999", "2026/11/30",
    ])
    func badInputIsATypedErrorWithTheForms(text: String) {
        #expect {
            _ = try HistoryPoint.parse(text, now: now, zone: .utc)
        } throws: { error in
            guard let error = error as? HistoryPointError else { return false }
            return error.text == text && error.description.contains("\nhint: WHEN is -10m, -2h, -3d")
        }
    }
}

import BooksClient
import BooksTestSupport
import Foundation
import Testing

/// Past what the history keeps (`change_log_retention=2`): `log`, `show`, `blame`, `list --at`,
/// `undo` and `subscribe --since` say what is kept instead of answering wrongly, and `status` and
/// `stores` show the oldest seq and time kept, before and after a restart (the trimmed history
/// is what is saved).
@Suite("History: past retention")
struct HistoryRetentionTests {
    typealias Parity = NATSCLIParityTests

    @Test func pastRetentionEveryCommandSaysWhatIsKeptAlsoAfterARestart() async throws {
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Herbert", "2|Emma|Austen"], settings: ["change_log_retention=2"])
        let client = try await daemon.connect()
        for name in ["Dune I", "Dune II", "Dune III"] { _ = try await client.update([BookPatch(id: "1", name: name)]) }
        _ = try await client.update([BookPatch(id: "2", name: "Emma II")])  // seqs 1…4; 3 and 4 kept
        client.close()
        func ctl(_ arguments: [String]) async throws -> (lines: [String], stderr: String, status: Int32, output: String)
        {
            try await Parity.booksctl(nats: nil, daemon, arguments)
        }
        func check() async throws {
            // status shows the oldest change set kept and its time.
            let status = try await ctl(["status", "--json"])
            let kept = Parity.members(status.output)
            #expect(kept["historyOldestSeq"] == "3" && kept["historyOldestTime"]?.hasSuffix("Z") == true, "\(status)")
            let text = try await ctl(["status"])
            #expect(text.lines.contains { $0.contains("history") && $0.contains("from seq 3 (") }, "\(text)")
            // So does stores: the same seq and time, and in the table the seq and its local time.
            let stores = try await ctl(["stores", "--json"])
            let row = Parity.members(stores.lines.first ?? "")
            #expect(
                stores.status == 0 && row["historyOldestSeq"] == "3"
                    && row["historyOldestTime"] == kept["historyOldestTime"], "\(stores) \(status)")
            let table = try await ctl(["stores"])
            let header = table.lines.first ?? ""
            let columns = (header.range(of: "OLDEST")?.lowerBound, header.range(of: "SINCE")?.lowerBound)
            #expect(columns.0 != nil && columns.1 != nil, "\(table)")
            if let from = columns.0, let since = columns.1, let line = table.lines.dropFirst().first {
                let cells = String(line.dropFirst(header.distance(from: header.startIndex, to: from)))
                #expect(cells.hasPrefix("3 "), "OLDEST is 3: \(table)")
                let time = String(line.dropFirst(header.distance(from: header.startIndex, to: since)).prefix(19))
                #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) != nil, "SINCE: \(table)")
            }
            let log = try await ctl(["log", "--json"])
            #expect(log.lines.map { Parity.members($0)["seq"] ?? "" } == ["3", "4"], "\(log)")
            let shown = try await ctl(["show", "1"])
            #expect(shown.status == 5, "\(shown)")
            #expect(shown.stderr.contains("change set 1 is no longer in the history kept (the oldest kept is seq 3)"))
            // After 2: rebuilt by undoing 3 and 4 (kept); after 1 would need 2 undone (gone).
            let atTwo = try await ctl(["list", "--at", "2", "--json"])
            #expect(atTwo.lines.compactMap { Parity.members($0)["name"] } == ["Dune II", "Emma"], "\(atTwo)")
            let older = try await ctl(["list", "--at", "1"])
            #expect(
                older.status == 5 && older.stderr.contains("older than the history kept (it can show seq 2 or later)"),
                "a clear error naming what is kept: \(older)")
            let longAgo = try await ctl(["list", "--at", "-1h"])
            #expect(longAgo.status == 5 && longAgo.stderr.contains("older than the history kept"), "\(longAgo)")
            let undo = try await ctl(["undo", "2"])
            #expect(
                undo.status == 5
                    && undo.stderr.contains("change set 2 is no longer in the history (the oldest kept is seq 3)"),
                "\(undo)")
            let blame = try await ctl(["blame", "1", "2"])
            #expect(blame.lines.first?.hasPrefix("1  3  ") == true, "book 1's last change is kept: \(blame)")
            let emma = try await ctl(["blame", "2", "--json"])
            #expect(Parity.members(emma.lines.first ?? "")["seq"] == "4", "\(emma)")
            // A resume from before what is kept: a resync notice and line, never a wrong event.
            // (--count does not count the resync line: booksctl is stopped after 4 s.)
            let resumed = try await Parity.booksctl(
                nats: nil, daemon, ["subscribe", "--json", "--since", "1", "--count", "1"], timeout: 4)
            #expect(resumed.stderr.contains("history"), "the gap is announced: \(resumed)")
            #expect(Parity.members(resumed.lines.first ?? "")["kind"] == "resync", "\(resumed)")
            #expect(!resumed.lines.contains { Parity.members($0)["seq"] == "2" })
        }
        try await check()
        #expect(daemon.stop() == 0)
        try await daemon.start()
        try await check()
    }

    /// `history_max_bytes` compacts the history as writes come: `stores` (table and `--json`)
    /// moves its oldest seq and time along with what `log` still shows, also after a restart.
    @Test func storesShowsTheOldestKeptAsTheSizeLimitCompacts() async throws {
        let daemon = try await FeedDaemon(rows: ["1|Dune|Herbert"], settings: ["history_max_bytes=1K"])
        let client = try await daemon.connect()
        for k in 1...30 { _ = try await client.update([BookPatch(id: "1", name: "Dune \(k)")]) }
        client.close()
        func check() async throws {
            let log = try await Parity.booksctl(nats: nil, daemon, ["log", "--json", "-n", "1000"])
            let first = Parity.members(log.lines.first ?? "")
            let oldest = UInt64(first["seq"] ?? "") ?? 0
            #expect(oldest > 1 && log.lines.last.map { Parity.members($0)["seq"] } == "30", "compacted: \(log)")
            let stores = try await Parity.booksctl(nats: nil, daemon, ["stores", "--json"])
            let row = Parity.members(stores.lines.first ?? "")
            #expect(row["historyOldestSeq"] == String(oldest), "\(stores) \(log.lines.first ?? "")")
            #expect(row["historyOldestTime"] == first["time"], "\(stores) \(log.lines.first ?? "")")
            let table = try await Parity.booksctl(nats: nil, daemon, ["stores"])
            let header = table.lines.first ?? ""
            if let column = header.range(of: "OLDEST")?.lowerBound, let line = table.lines.dropFirst().first {
                let cell = line.dropFirst(header.distance(from: header.startIndex, to: column)).prefix { $0 != " " }
                #expect(cell == String(oldest), "\(table)")
            } else {
                Issue.record("no OLDEST column: \(table)")
            }
        }
        try await check()
        #expect(daemon.stop() == 0)
        try await daemon.start()
        try await check()
    }
}

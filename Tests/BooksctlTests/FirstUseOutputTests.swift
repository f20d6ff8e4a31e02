import BooksCore
import BooksProtocol
import Testing

@testable import booksctl

/// What a new user trips over: options accepted silently, tables that drift or ignore the
/// terminal's width.
@Suite struct FirstUseOutputTests {
    func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try CommandLineParser.parse(arguments)
            return nil
        } catch { return error.message }
    }

    @Test func coalesceWithoutExecIsAUsageError() throws {
        #expect(usageMessage(["subscribe", "--coalesce", "500"])?.hasPrefix("--coalesce needs --exec CMD") == true)
        #expect(usageMessage(["subscribe", "--coalesce", "500", "--exec", "true"]) == nil)
    }

    @Test func sinceNeedsTheDaemonsKindOfEpoch() throws {
        for bad in ["bogus:3", "E:1", "5A09FBA9-438A:17", "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A9G:1"] {
            #expect(throws: SubscribeFailure.self, "\(bad)") {
                try SinceOption.start(SubscribeOptions(since: bad))
            }
        }
        do {
            _ = try SinceOption.start(SubscribeOptions(since: "bogus:3"))
        } catch {
            #expect(error.description.contains("\nhint: EPOCH is the daemon's, a UUID"), "\(error)")
        }
        let lower = "5a09fba9-438a-4c0b-9f6e-2b3d6e7f8a90"
        #expect(try SinceOption.start(SubscribeOptions(since: lower + ":0")) == .cursor(Cursor(epoch: lower, seq: 0)))
    }

    /// The display column where the last column (after the last run of two spaces) starts.
    func lastColumnStart(_ line: String) -> Int {
        guard var start = line.ranges(of: "  ").last?.upperBound else { return -1 }
        while start < line.endIndex, line[start] == " " { start = line.index(after: start) }
        return DisplayWidth.of(String(line[..<start]))
    }

    @Test(arguments: [nil, 60] as [Int?])
    func tableColumnsDoNotDriftFromPageToPage(width: Int?) {
        var printer = ListPrinter(format: .table(Style(enabled: false), width: width))
        let first = (1...3).map { Book(id: "id-\($0)", name: "Short \($0)", author: "A") }
        let later = (4...6).map { Book(id: "id-\($0)", name: "A much longer name \($0)", author: "Author \($0)") }
        let out = printer.page(first) + printer.page([]) + printer.page(later) + printer.finish(total: 6)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init).dropLast()
        #expect(lines.count == 7, "\(lines)")
        let starts = Set(lines.filter { !$0.contains("longer") || width != nil }.map(lastColumnStart))
        #expect(starts.count == 1, "\(lines)")
        if width != nil {
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= 60 }, "\(lines)")
            #expect(lines.last?.hasSuffix("Author 6") == true, "the last column takes the room left: \(lines)")
        } else {
            #expect(lines.last?.contains("A much longer name 6  Author 6") == true, "--full cuts nothing: \(lines)")
        }
    }

    @Test func storesTableIsCutToTheTerminal() {
        let problem =
            "cannot read " + String(repeating: "/very/long/directory", count: 7) + "/books.txt: Permission denied"
        let stores = [
            StoreInfo(
                name: "books", path: "/srv/books/books.txt", format: "text", state: "unavailable", problem: problem,
                bookCount: 0, badLines: 0, epoch: "E", seq: 0),
            StoreInfo(
                name: "fiction", path: "/srv/books/fiction.txt", format: "text", state: "present", bookCount: 12,
                badLines: 1, epoch: "E", seq: 7),
        ]
        let full = StoresCommand.table(stores, style: Style(enabled: false), width: nil)
        #expect(full.contains { DisplayWidth.of($0) > 159 }, "\(full)")
        // 95 columns: room for every column but the long problem (which is cut, not the path).
        let cut = StoresCommand.table(stores, style: Style(enabled: false), width: 95)
        #expect(cut.count == 3 && cut.allSatisfy { DisplayWidth.of($0) <= 95 }, "\(cut)")
        #expect(cut[1].contains("unavailable (") && cut[1].contains("…"), "\(cut)")
        #expect(cut[2].hasSuffix("/srv/books/fiction.txt"), "\(cut)")
        #expect(Set(cut.map(lastColumnStart)).count == 1, "\(cut)")
        // The oldest change set kept: its seq and local time (`-` without a history).
        var kept = stores
        kept[1].historyOldestSeq = 3
        kept[1].historyOldestTime = "2026-12-02T08:30:55.123Z"
        let shown = StoresCommand.table(kept, style: Style(enabled: false), width: nil)
        let cells = shown.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(cells[0].contains("OLDEST") && cells[0].contains("SINCE"), "\(shown)")
        #expect(cells[2].contains("3") && shown[2].contains(HistoryPrinter.localTime("2026-12-02T08:30:55.123Z")))
        #expect(cells[1].filter { $0 == "-" }.count == 2, "no history kept: - and -, \(shown)")
        let narrow = StoresCommand.table(kept, style: Style(enabled: false), width: 80)
        #expect(narrow.allSatisfy { DisplayWidth.of($0) <= 80 }, "\(narrow)")
    }
}

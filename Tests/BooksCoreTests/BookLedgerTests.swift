import Testing

@testable import BooksCore

@Suite struct BookLedgerTests {
    func context(_ rows: [String], retention: Int = 100) -> BookLedger {
        BookLedger(document: BookDocument(parsing: Samples.file(rows)), epoch: "E", retention: retention)
    }

    @Test func seqRisesByOnePerNonEmptyChange() {
        var c = context(["1|A|B"])
        #expect(c.seq == 0)
        #expect(c.apply(bytes: Samples.file(["1|A|B", "# only a comment"]), source: .file) == nil)
        #expect(c.seq == 0)
        let applied = c.apply(bytes: Samples.file(["1|A|C"]), source: .client)
        #expect(applied?.seq == 1)
        #expect(applied?.source == .client)
        #expect(applied?.epoch == "E")
        #expect(c.apply(bytes: Samples.file(["1|A|C", "2|X|Y"]), source: .file)?.seq == 2)
        #expect(c.version(of: "1") == 1)
        #expect(c.version(of: "2") == 2)
    }

    @Test func slipOfTheHandHoldsTheBook() {
        var c = context(["1|Dune|Herbert", "2|Emma|Austen"])
        // The author field is lost by mistake: the row becomes a bad line that still starts with the id.
        let slip = c.apply(bytes: Samples.file(["1|Dune", "2|Emma|Austen"]), source: .file)
        #expect(slip == nil)
        #expect(c.held["1"] == Book(id: "1", name: "Dune", author: "Herbert"))
        #expect(c.book(id: "1") != nil)
        #expect(c.bookCount == 2)
        #expect(c.document.badLines.first?.lineNumber == 1)
        // Fixed with a new value: an update from the held values.
        let fixed = c.apply(bytes: Samples.file(["1|Dune|F. Herbert", "2|Emma|Austen"]), source: .file)
        #expect(
            fixed?.changes
                == ChangeSet(updated: [
                    BookUpdate(
                        old: Book(id: "1", name: "Dune", author: "Herbert"),
                        new: Book(id: "1", name: "Dune", author: "F. Herbert"))
                ]))
        #expect(c.held.isEmpty)
    }

    @Test func slipFixedUnchangedReportsNothing() {
        var c = context(["1|Dune|Herbert"])
        _ = c.apply(bytes: Samples.file(["1|Dune|Herbert|"]), source: .file)
        #expect(c.held.count == 1)
        #expect(c.apply(bytes: Samples.file(["1|Dune|Herbert"]), source: .file) == nil)
        #expect(c.held.isEmpty)
    }

    @Test func slipLineRemovedIsADelete() {
        var c = context(["1|Dune|Herbert", "2|Emma|Austen"])
        _ = c.apply(bytes: Samples.file(["1|Dune", "2|Emma|Austen"]), source: .file)
        let removed = c.apply(bytes: Samples.file(["2|Emma|Austen"]), source: .file)
        #expect(removed?.changes == ChangeSet(deleted: [Book(id: "1", name: "Dune", author: "Herbert")]))
        #expect(c.book(id: "1") == nil)
    }

    @Test func replayServesMissedChangesOrAsksForResync() {
        var c = context(["1|A|B"], retention: 2)
        for k in 1...4 { _ = c.apply(bytes: Samples.file(["1|A|\(k)"]), source: .file) }
        #expect(c.seq == 4)
        #expect(c.replay(fromEpoch: "E", seq: 4) == .replay([]))
        guard case .replay(let missed) = c.replay(fromEpoch: "E", seq: 2) else {
            Issue.record("expected replay")
            return
        }
        #expect(missed.map(\.seq) == [3, 4])
        #expect(c.replay(fromEpoch: "E", seq: 1) == .resyncRequired(reason: "history-trimmed"))
        #expect(c.replay(fromEpoch: "other", seq: 4) == .resyncRequired(reason: "different-epoch"))
        #expect(c.replay(fromEpoch: "E", seq: 9) == .resyncRequired(reason: "future-seq"))
    }

    @Test func queriesFilterSortAndPage() throws {
        let c = context([
            "1|Dune|Frank Herbert", "2|Emma|Jane Austen", "3|Persuasion|Jane Austen", "4|dune messiah|Frank Herbert",
        ])
        let austen = try c.query(
            BookQuery(
                filter: BookFilter([BookCondition(.author, .equals, "Jane Austen")]),
                sort: BookSort(.name, ascending: false)))
        #expect(austen.books.map(\.id) == ["3", "2"])
        #expect(austen.total == 2)
        let dune = try c.query(BookQuery(filter: BookFilter([BookCondition(.name, .containsIgnoringCase, "DUNE")])))
        #expect(dune.books.map(\.id) == ["1", "4"])
        let exact = try c.query(BookQuery(filter: BookFilter([BookCondition(.name, .contains, "Dune")])))
        #expect(exact.books.map(\.id) == ["1"])
        let prefix = try c.query(BookQuery(filter: BookFilter([BookCondition(.id, .prefix, "3")])))
        #expect(prefix.books.map(\.id) == ["3"])
        let page = try c.query(BookQuery(sort: BookSort(.id), limit: 2, offset: 1))
        #expect(page.books.map(\.id) == ["2", "3"])
        #expect(page.total == 4)
        #expect(BookSort(parsing: "-author") == BookSort(.author, ascending: false))
        #expect(BookSort(parsing: "title") == nil)
    }

    @Test func changeLogKeepsOnlyRetention() {
        var log = ChangeLog(retention: 3)
        for seq in 1...10 as ClosedRange<UInt64> {
            log.append(
                SequencedChangeSet(
                    epoch: "E", seq: seq, source: .file, time: .init(timeIntervalSince1970: 0), changes: ChangeSet()))
        }
        #expect(log.count == 3)
        #expect(log.changes(after: 7, currentSeq: 10)?.map(\.seq) == [8, 9, 10])
        #expect(log.changes(after: 6, currentSeq: 10) == nil)
    }

    @Test func eachBooksLastChangeIsIndexedAndLeavesWithItsChangeSet() {
        var log = ChangeLog(retention: 3)
        func add(_ seq: UInt64, inserted: [String] = [], deleted: [String] = []) {
            let book = { (id: String) in Book(id: id, name: "N\(id)", author: "A") }
            log.append(
                SequencedChangeSet(
                    epoch: "E", seq: seq, source: .client, time: .init(timeIntervalSince1970: Double(seq)),
                    changes: ChangeSet(inserted: inserted.map(book), deleted: deleted.map(book))))
        }
        add(1, inserted: ["a", "b"])
        add(2, inserted: ["c"])
        add(3, deleted: ["a"])
        #expect(log.lastChange(of: "a")?.seq == 3 && log.lastChange(of: "b")?.seq == 1)
        #expect(log.lastChange(of: "c")?.seq == 2 && log.lastChange(of: "z") == nil)
        add(4, inserted: ["d"])  // seq 1 dropped: b's last change is no longer held
        #expect(log.lastChange(of: "b") == nil && log.lastSeq(of: "b") == nil)
        #expect(log.lastChange(of: "a")?.seq == 3)
        log.trim(keeping: 1) { $0.seq < 4 }
        #expect(log.lastChange(of: "a") == nil && log.lastChange(of: "c") == nil && log.lastChange(of: "d")?.seq == 4)
        // The newest amended to no longer touch d: not reported as d's change.
        log.amendLast { $0.changes = ChangeSet() }
        #expect(log.lastChange(of: "d") == nil)
    }
}

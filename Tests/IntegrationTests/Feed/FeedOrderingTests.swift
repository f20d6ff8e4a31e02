import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Testing

/// All change-feed integration tests run one after another: each starts its own `booksd`, and
/// timing-sensitive ones (lag, races) must not compete for the two shared cores.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FeedTests {}

/// What a subscriber with `filter` must see of `changes` (independent of the daemon's code):
/// an update leaving the filter is a delete, one entering it an insert.
func feedExpectedView(_ changes: ChangeSet, _ filter: BookFilter) -> ChangeSet {
    var view = ChangeSet()
    view.inserted = changes.inserted.filter(filter.matches)
    view.deleted = changes.deleted.filter(filter.matches)
    for update in changes.updated {
        switch (filter.matches(update.old), filter.matches(update.new)) {
        case (true, true): view.updated.append(update)
        case (true, false): view.deleted.append(update.old)
        case (false, true): view.inserted.append(update.new)
        case (false, false): break
        }
    }
    return view
}

/// A change set made comparable regardless of the order inside each list.
func feedNormalized(_ c: ChangeSet) -> ChangeSet {
    ChangeSet(
        inserted: c.inserted.sorted { $0.id < $1.id }, updated: c.updated.sorted { $0.old.id < $1.old.id },
        deleted: c.deleted.sorted { $0.id < $1.id })
}

extension FeedTests {
    @Test("several subscribers with different filters get correct streams in the same order")
    func filteredSubscribersSeeTheSameOrder() async throws {
        let daemon = try await FeedDaemon(rows: [
            "b1|The Hobbit|J. R. R. Tolkien",
            "b2|Dune|Frank Herbert",
            "b3|The Silmarillion|J. R. R. Tolkien",
        ])
        let filters: [BookFilter] = [
            .all,
            BookFilter([BookCondition(.author, .containsIgnoringCase, "tolkien")]),
            BookFilter([BookCondition(.name, .prefix, "The")]),
            BookFilter([BookCondition(.name, .prefix, "The"), BookCondition(.author, .equals, "Frank Herbert")]),
            .all,
        ]
        var clients: [BooksClient] = []
        var recorders: [FeedRecorder] = []
        for filter in filters {
            let client = try await daemon.connect("sub")
            clients.append(client)
            let recorder = FeedRecorder(client.changes(filter: filter))
            recorders.append(recorder)
            await recorder.wait("snapshot") { $0.contains { if case .snapshot = $0 { true } else { false } } }
        }
        let writer = try await daemon.connect("writer")
        // A mix of client writes and hand edits, each waited for so that the file is not rewritten
        // under a concurrent hand edit (races are tested separately).
        var seq: UInt64 = 0
        func settle() async {
            seq += 1
            await recorders[0].waitForSeq(seq)
        }
        _ = try await writer.insert([BookDraft(id: "c1", name: "The Lord of the Rings", author: "J. R. R. Tolkien")])
        await settle()
        try daemon.handAppend("h1|The Dune Messiah|Frank Herbert")
        await settle()
        _ = try await writer.update([BookPatch(id: "b2", name: "The Dune")])  // enters the name filter
        await settle()
        try daemon.handWriteInPlace(
            """
            b1|The Hobbit|Tolkien, J. R. R.
            b2|The Dune|Frank Herbert
            b3|Silmarillion|J. R. R. Tolkien
            c1|The Lord of the Rings|J. R. R. Tolkien
            h1|The Dune Messiah|Frank Herbert

            """)  // b3 leaves the name filter
        await settle()
        try await writer.delete(["c1"])
        await settle()
        _ = try await writer.insert([
            BookDraft(id: "c2", name: "Emma", author: "Jane Austen"),
            BookDraft(id: "c3", name: "The Two Towers", author: "J. R. R. Tolkien"),
        ])
        await settle()
        #expect(seq == 6)

        let all = recorders[0].changes
        #expect(all.map(\.seq) == Array(1...seq))
        #expect(all.map(\.source) == [.client, .file, .client, .file, .client, .client])
        // A second unfiltered subscriber sees exactly the same stream.
        await recorders[4].waitForSeq(seq)
        #expect(recorders[4].changes == all)
        for (k, filter) in filters.enumerated() where k > 0 && k < 4 {
            let expected = all.compactMap { change -> (UInt64, ChangeSet)? in
                let view = feedExpectedView(change.changes, filter)
                return view.isEmpty ? nil : (change.seq, feedNormalized(view))
            }
            let ok = await eventually(timeout: 5) { recorders[k].changes.count >= expected.count }
            #expect(ok, "filter \(k) got \(recorders[k].changes.count) of \(expected.count) changes")
            let got = recorders[k].changes.map { ($0.seq, feedNormalized($0.changes)) }
            #expect(got.map(\.0) == expected.map(\.0), "filter \(k): seqs")
            #expect(got.map(\.1) == expected.map(\.1), "filter \(k): contents")
            // Filtered seqs are a strictly increasing subsequence of the full stream.
            #expect(zip(got, got.dropFirst()).allSatisfy { $0.0 < $1.0 })
        }
        // The snapshot each one started from matched its filter.
        for (k, filter) in filters.enumerated() {
            guard case .snapshot(let s)? = recorders[k].snapshot.first else {
                Issue.record("subscriber \(k) did not start with a snapshot")
                continue
            }
            #expect(s.seq == 0)
            #expect(s.books.allSatisfy(filter.matches))
        }
        for r in recorders { r.cancel() }
        for c in clients { c.close() }
        daemon.stop()
    }

    @Test("a row typed by hand without id gets one and is reported as a file insert")
    func handTypedRowIsAFileChange() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"])
        let client = try await daemon.connect()
        let feed = FeedRecorder(client.changes())
        await feed.wait("snapshot") { !$0.isEmpty }
        try daemon.handAppend("Typed By Hand|Someone")
        await feed.waitForSeq(1)
        let change = try #require(feed.changes.first)
        #expect(change.source == .file)
        #expect(change.changes.inserted.count == 1)
        let book = try #require(change.changes.inserted.first)
        #expect(book.name == "Typed By Hand" && book.author == "Someone" && !book.id.isEmpty)
        #expect(try daemon.fileBooks() == [Book(id: "b1", name: "Emma", author: "Jane Austen"), book])
        try await Task.sleep(for: .milliseconds(100))
        #expect(feed.changes.count == 1, "the id assignment must not be reported twice")
        feed.cancel()
        daemon.stop()
    }
}

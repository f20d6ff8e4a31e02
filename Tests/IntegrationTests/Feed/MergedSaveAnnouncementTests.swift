import BooksClient
import BooksCore
import BooksTestSupport
import Glibc
import Testing

/// A merged stale save is announced only once the merged content is in the file, as every
/// other write booksd makes: a subscriber that reads books.txt the moment it gets the merged
/// change set finds the others' writes in it (and writing that back loses nothing).
@Suite("Merged saves: announced once in the file", .timeLimit(.minutes(3)))
struct MergedSaveAnnouncementTests {
    /// Big enough that rewriting the file takes a while, even on a fast disk.
    static let rowCount = 200_000

    static func row(_ k: Int, name: String? = nil) -> String { "b\(k)|\(name ?? "Book \(k)")|Author \(k)" }

    @Test("a subscriber reading books.txt on the merged change set finds the client's write in it")
    func theFileHoldsTheMergedSaveWhenItIsAnnounced() async throws {
        let daemon = try await FeedDaemon(rows: (1...Self.rowCount).map { Self.row($0) })
        defer { daemon.stop() }
        let client = try await daemon.connect()
        var feed = client.changes(snapshot: false).makeAsyncIterator()
        guard case .subscribed = try await feed.next() else { throw TestSupportError("no subscribed item") }
        // The saver's copy: made now, from the version in place (book 7 renamed), before the
        // client's write; renamed over the file after it (the birth-time evidence of its base).
        var saved = (1...Self.rowCount).map { Self.row($0) }
        saved[6] = Self.row(7, name: "Saver's Title")
        let stale = daemon.directory + "/.books.txt.stale"
        try TestFiles.write(saved.map { $0 + "\n" }.joined(), to: stale)
        _ = try await client.update([BookPatch(id: "b100", name: "Client Title")])
        let clientChange = try await Self.next(&feed, updating: "b100")
        guard rename(stale, daemon.file) == 0 else { throw TestSupportError("rename: \(TestFiles.errorText())") }
        let mergedChange = try await Self.next(&feed, updating: "b7")
        let seen = TestFiles.readText(daemon.file) ?? ""  // at once, as a subscriber would
        let (clientWrite, save) = (
            seen.contains("\nb100|Client Title|Author 100\n"), seen.contains("\nb7|Saver's Title|")
        )
        #expect(clientWrite, "the client's write is not in the file when the merged change set arrives")
        #expect(save, "the saver's edit is not in the file")
        #expect(daemon.log.contains("merged"), "the save was merged: \(daemon.log.suffix(2000))")
        // The Swift client's change says so: merged, from the version before the client's write.
        #expect(clientChange.mergedBase == nil)
        #expect(mergedChange.mergedBase == clientChange.seq - 1, "\(mergedChange)")
    }

    /// Reads the feed until a change set updating book `id` (failing on one that deletes or
    /// inserts a book: only the two edits are made) and returns it.
    static func next(_ feed: inout BooksFeed<FeedItem>.AsyncIterator, updating id: String) async throws -> FeedChange {
        while let item = try await feed.next() {
            guard case .change(let change) = item else { continue }
            #expect(change.changes.deleted.isEmpty && change.changes.inserted.isEmpty, "\(change)")
            if change.changes.updated.contains(where: { $0.new.id == id }) { return change }
        }
        throw TestSupportError("the feed ended before book \(id) was updated")
    }
}

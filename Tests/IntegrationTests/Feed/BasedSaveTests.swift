import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Testing

/// A Swift client's `save` with a base against a real daemon: merged onto what others wrote
/// since, its conflict kept like a stale editor buffer's.
extension FeedTests {
    /// Reads the books (the base), lets `other` rename b1 and change b2's author, then saves
    /// b1's author and b2's author through `client` with that base; checks the merge, the kept
    /// conflict and its `conflict` feed line, then resolves it with theirs.
    static func basedSaveIsMerged(
        _ client: some BookRequests, other: BooksClient, feed: FeedRecorder, fileBooks: () throws -> [Book]
    ) async throws {
        let page = try await client.list()
        let base = ResumePoint(epoch: try #require(page.epoch), seq: page.seq)
        _ = try await other.update([BookPatch(id: "b1", name: "Dune Messiah"), BookPatch(id: "b2", author: "Theirs")])
        let saved = try await client.save(
            updated: [BookPatch(id: "b1", author: "F. Herbert"), BookPatch(id: "b2", author: "Mine")],
            deleted: [BookDeletion(id: "b3")], base: base)
        #expect(saved.merged == ["b1"], "\(saved)")
        let conflict = try #require(saved.conflicts.first, "\(saved)")
        #expect(saved.conflicts.count == 1 && conflict.conflict.id == "b2" && conflict.conflict.field == "author")
        #expect(conflict.conflict.mineValue == "Mine" && conflict.conflict.theirsValue == "Theirs")
        #expect(conflict.baseSeq == base.seq && conflict.seq == saved.seq)
        #expect(
            saved.books.map(\.book) == [
                Book(id: "b1", name: "Dune Messiah", author: "F. Herbert"),
                Book(id: "b2", name: "Emma", author: "Mine"),
            ])
        #expect(
            try fileBooks() == [
                Book(id: "b1", name: "Dune Messiah", author: "F. Herbert"),
                Book(id: "b2", name: "Emma", author: "Mine"),
            ])
        #expect(try await other.conflicts() == saved.conflicts, "kept by the daemon")
        await feed.wait("the conflict line", timeout: .seconds(20)) { items in
            items.contains { if case .conflict(let n) = $0 { n.conflict == conflict } else { false } }
        }
        let change = try await other.changeSet(saved.seq)
        #expect(
            change?.merged?.base == base.seq,
            "the change set is marked merged with its base: \(String(describing: change))")
        _ = try await other.resolve(conflict.id, take: .theirs)
        #expect(try fileBooks().first { $0.id == "b2" }?.author == "Theirs")
        #expect(try await other.conflicts().isEmpty)
        let refused: String
        do {
            let stale = ResumePoint(epoch: "old", seq: 1)
            refused = "\(try await client.save(updated: [BookPatch(id: "b1", name: "X")], base: stale))"
        } catch {
            refused = "\(error)"
        }
        #expect(refused.contains("base-not-kept"), "a save with another epoch's base: \(refused)")
        #expect(try fileBooks().first { $0.id == "b1" }?.name == "Dune Messiah", "nothing written")
    }

    @Test("a client's save with a base is merged: others' changes kept, a same-field conflict recorded")
    func clientSaveWithABase() async throws {
        let daemon = try await FeedDaemon(rows: Self.saveRows)
        defer { _ = daemon.stop() }
        let watcher = try await daemon.connect("watcher")
        let feed = FeedRecorder(watcher.changes(snapshot: false, conflicts: true))
        let other = try await daemon.connect("other")
        #expect(await eventually(timeout: 10) { ((try? await other.status().subscribers) ?? 0) == 1 })
        try await Self.basedSaveIsMerged(try await daemon.connect("saver"), other: other, feed: feed) {
            try daemon.fileBooks()
        }
    }
}

import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Testing

/// The `save` operation and `BooksContext` against a real daemon.
extension FeedTests {
    static let saveRows = ["b1|Dune|Frank Herbert", "b2|Emma|Jane Austen", "b3|Ulysses|James Joyce"]

    /// How many durable writes the daemon logged (one `saved (rewrite|append)` line each).
    static func durableWrites(_ daemon: FeedDaemon) -> Int {
        daemon.log.split(separator: "\n").filter { $0.contains("saved (rewrite") || $0.contains("saved (append") }.count
    }

    /// The conflicts `save` threw, or nil (recorded as an issue) when it did not throw them.
    static func conflicts(_ save: () async throws(BooksContextError) -> Void) async -> [BookConflict]? {
        do {
            try await save()
        } catch {
            if case .conflict(let conflicts) = error { return conflicts }
            Issue.record("expected a conflict, got \(error)")
            return nil
        }
        Issue.record("the save was accepted")
        return nil
    }

    @Test("a save mixing inserts, updates and deletes is one change set and one durable write")
    func mixedSaveIsOneChangeSetAndOneWrite() async throws {
        let daemon = try await FeedDaemon(rows: Self.saveRows)
        let watcher = try await daemon.connect("watcher")
        let feed = FeedRecorder(watcher.changes())
        let writer = try await daemon.connect("writer")
        #expect(await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) == 1 })

        let context = BooksContext(writer)
        #expect(try await context.fetch().map(\.id) == ["b1", "b2", "b3"])
        let walden = context.insert(name: "Walden", author: "Henry Thoreau")
        let beloved = context.insert(name: "Beloved", author: "Toni Morrison")
        try context.update("b1", name: "Dune Messiah")
        try context.delete("b2")
        let byName = BookQuery(sort: BookSort(.name), limit: 2)
        #expect(try await context.fetch(byName).map(\.id) == [beloved, "b1"], "the fetch sees unsaved changes")
        let writesBefore = Self.durableWrites(daemon)

        let remap = try await context.save()
        #expect(!context.hasChanges)
        #expect(Set(remap.keys) == [walden, beloved])
        await feed.waitForSeq(1)
        let changes = feed.changes
        #expect(changes.count == 1, "one change set: \(changes.map(\.seq))")
        let change = try #require(changes.first)
        #expect(change.source == .client)
        #expect(change.changes.inserted.map(\.id) == [remap[walden], remap[beloved]])
        #expect(change.changes.updated.map(\.new) == [Book(id: "b1", name: "Dune Messiah", author: "Frank Herbert")])
        #expect(change.changes.deleted.map(\.id) == ["b2"])
        #expect(Self.durableWrites(daemon) == writesBefore + 1, "one durable write")

        // The permanent ids are the ones in the file.
        let file = try daemon.fileBooks()
        #expect(
            file.first { $0.id == remap[walden] } == Book(id: remap[walden]!, name: "Walden", author: "Henry Thoreau"))
        #expect(file.first { $0.id == remap[beloved] }?.name == "Beloved")
        #expect(!file.contains { $0.id == "b2" || $0.id.hasPrefix("temp:") })
        #expect(try await context.fetch(byName).map(\.id) == [remap[beloved], "b1"])
        // The new books are known under their permanent ids: they can be changed at once.
        try context.update(remap[walden]!, author: "H. D. Thoreau")
        try await context.save()
        #expect(
            await eventually(timeout: 5) {
                (try? daemon.fileBooks())?.contains { $0.author == "H. D. Thoreau" } == true
            })
    }

    @Test("a stale save reports every conflicting book with its current value and writes nothing")
    func staleSaveReportsEveryConflict() async throws {
        let daemon = try await FeedDaemon(rows: Self.saveRows)
        let mine = BooksContext(try await daemon.connect("mine"))
        let theirs = BooksContext(try await daemon.connect("theirs"))
        _ = try await mine.fetch()
        _ = try await theirs.fetch()
        try theirs.update("b1", name: "Children of Dune")
        try theirs.delete("b2")
        try await theirs.save()
        let before = try daemon.readFile()

        try mine.update("b1", author: "F. Herbert")
        try mine.update("b2", name: "Persuasion")
        try mine.delete("b3")
        _ = mine.insert(name: "Walden", author: "Thoreau")
        let refused = await Self.conflicts { () async throws(BooksContextError) in try await mine.save() }
        #expect(refused?.map(\.id) == ["b1", "b2"])
        #expect(refused?.first?.current == Book(id: "b1", name: "Children of Dune", author: "Frank Herbert"))
        #expect(refused?.first?.currentVersion != nil)
        #expect(refused?.last?.current == nil, "b2 was deleted")
        #expect(try daemon.readFile() == before, "nothing of the refused save was written")
        #expect(mine.hasChanges, "the unsaved changes are kept")
        // Keep mine over theirs: b1 is written over its current version, b2 (gone) is dropped.
        mine.keepMyChanges(over: refused ?? [])
        let remap = try await mine.save()
        let file = try daemon.fileBooks()
        #expect(file.first { $0.id == "b1" } == Book(id: "b1", name: "Children of Dune", author: "F. Herbert"))
        #expect(!file.contains { $0.id == "b2" || $0.id == "b3" })
        #expect(file.contains { $0.id == remap.values.first && $0.name == "Walden" })
        try mine.update("b1", author: "Frank Herbert")
        mine.rollback()
        #expect(!mine.hasChanges)
    }

    @Test("a context fetches more books than one get may ask for, and saves a change to the last")
    func largeFetch() async throws {
        let daemon = try await FeedDaemon(rows: (0..<10_050).map { "b\($0)|Book \($0)|Author" })
        let context = BooksContext(try await daemon.connect())
        let books = try await context.fetch()
        #expect(books.count == 10_050)
        try context.update("b10049", name: "Last")
        try await context.save()
        #expect(try daemon.fileBooks().last == Book(id: "b10049", name: "Last", author: "Author"))
    }

    @Test("hand edits made while saves run are never lost")
    func handEditsDuringSavesAreKept() async throws {
        let daemon = try await FeedDaemon(rows: Self.saveRows)
        let context = BooksContext(try await daemon.connect("saver"))
        _ = try await context.fetch()
        let editor = Task.detached {
            for k in 0..<20 {
                try daemon.handAppend("h\(k)|Hand \(k)|Editor")
                try await Task.sleep(for: .milliseconds(7))
            }
        }
        var saved: [String] = []
        for k in 0..<20 {
            let temp = context.insert(name: "Saved \(k)", author: "Context")
            try context.update("b3", name: "Ulysses \(k)")
            let remap = try await context.save()
            saved.append(try #require(remap[temp]))
        }
        try await editor.value
        #expect(
            await eventually(timeout: 5) {
                let ids = Set(((try? daemon.fileBooks()) ?? []).map(\.id))
                return (0..<20).allSatisfy { ids.contains("h\($0)") } && saved.allSatisfy(ids.contains)
            }, "every hand-appended row and every saved book is in the file")
        #expect(try daemon.fileBooks().first { $0.id == "b3" }?.name == "Ulysses 19")
        #expect(try await context.fetch().count == 3 + 20 + 20)
    }
}

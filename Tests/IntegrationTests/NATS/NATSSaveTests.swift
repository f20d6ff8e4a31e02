import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// `save` over NATS (`<prefix>.<store>.api`): the same request path as the socket.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSSaveTests {
    @Test func aContextOverNATSSavesAllOrNothingAndReportsConflicts() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["b1|Dune|Herbert", "b2|Emma|Austen"])
        let remote = BooksContext(try NATSBooksClient(options: NATSConnectOptions(urls: [server.url])))
        _ = try await remote.fetch()
        let temp = remote.insert(name: "Walden", author: "Thoreau")
        try remote.update("b1", author: "Frank Herbert")
        try remote.delete("b2")
        let remap = try await remote.save()
        let id = remap[temp] ?? "?"
        #expect(
            try daemon.fileBooks() == [
                Book(id: "b1", name: "Dune", author: "Frank Herbert"), Book(id: id, name: "Walden", author: "Thoreau"),
            ])

        let local = BooksContext(try await daemon.connect())
        _ = try await local.fetch()
        try local.update(id, name: "Walden Pond")
        try await local.save()
        try remote.update(id, author: "H. D. Thoreau")
        try remote.update("b1", name: "Dune Messiah")
        let conflicts = await FeedTests.conflicts { () async throws(BooksContextError) in try await remote.save() }
        #expect(conflicts?.map(\.id) == [id])
        #expect(conflicts?.first?.current?.name == "Walden Pond")
        #expect(try daemon.fileBooks().first { $0.id == "b1" }?.name == "Dune", "nothing of the stale save written")
    }

    @Test func aSaveWithABaseOverNATSIsMergedAndItsConflictKept() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: FeedTests.saveRows)
        let watcher = try await daemon.connect("watcher")
        let feed = FeedRecorder(watcher.changes(snapshot: false, conflicts: true))
        let other = try await daemon.connect("other")
        #expect(await eventually(timeout: 10) { ((try? await other.status().subscribers) ?? 0) == 1 })
        let remote = try NATSBooksClient(options: NATSConnectOptions(urls: [server.url]))
        try await FeedTests.basedSaveIsMerged(remote, other: other, feed: feed) { try daemon.fileBooks() }
    }
}

import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// A store without a state directory yet (a first start) creates its saved history after
/// readiness, before its first change set is handed out, or at a clean stop — never before it
/// serves (the cold start of 1,000 stores).
@Suite struct DeferredHistoryTests {
    let dir: TemporaryDirectory
    let recorded = StoreRegistryTests.Recorded()

    init() throws {
        dir = try TemporaryDirectory(prefix: "booksync-deferred-history")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: dir.file("a.txt"))
    }

    var state: String { dir.file("state") }

    func registry() -> StoreRegistry { StoreRegistryTests.registry(stateDirectory: state, recorded: recorded) }

    func exists(_ name: String) -> Bool {
        var status = stat()
        return lstat(state + "/a/" + name, &status) == 0
    }

    @Test func theHistoryIsCreatedOnlyAfterReady() throws {
        let registry = registry()
        defer { registry.stopWatchingAll() }
        #expect(registry.addAll([StoreSpec(name: try StoreName("a"), path: dir.file("a.txt"), format: .text)]).isEmpty)
        let engine = try #require(registry.engine(named: try StoreName("a")))
        #expect(registry.statuses().map(\.bookCount) == [1])  // serving
        #expect(!exists(""), "the state directory was created before ready")
        registry.finishStartup()
        engine.drain()  // after the queued creation
        #expect(exists("snapshot") && exists("journal") && exists("published"))
    }

    @Test func aChangeBeforeReadyIsPublishedAfterTheFirstSnapshot() async throws {
        let registry = registry()
        defer { registry.stopWatchingAll() }
        #expect(registry.addAll([StoreSpec(name: try StoreName("a"), path: dir.file("a.txt"), format: .text)]).isEmpty)
        #expect(!exists(""))
        try TestFiles.write("1|Dune|Frank Herbert\n2|Emma|Jane Austen\n", to: dir.file("a.txt"))
        let name = try StoreName("a")
        let channel = try #require(recorded.channels.withLock { $0[name] })
        let seen = await eventually(timeout: 10) { !channel.changes.withLock { $0.isEmpty } }
        #expect(seen, "the hand edit was not broadcast")
        #expect(exists("snapshot") && exists("journal"), "a change set was handed out before the first snapshot")
    }

    @Test func aStopBeforeReadyWritesTheHistoryDurablyClosed() throws {
        let registry = registry()
        #expect(registry.addAll([StoreSpec(name: try StoreName("a"), path: dir.file("a.txt"), format: .text)]).isEmpty)
        let epoch = try #require(registry.statuses().first?.epoch)
        registry.stopWatchingAll()
        registry.closeHistoryAll()  // a clean stop before `finishStartup()`
        // What the next start restores: a snapshot of this epoch and a journal closed cleanly after it.
        let snapshot = try HistorySnapshotFormat.decode(try #require(TestFiles.readBytes(state + "/a/snapshot")))
        let (header, records) = try HistoryJournalFormat.decode(try #require(TestFiles.readBytes(state + "/a/journal")))
        #expect(snapshot.context.epoch == epoch && snapshot.context.seq == 0)
        #expect(header.closedCleanly && header.snapshotID == snapshot.snapshotID && records.isEmpty)
    }
}

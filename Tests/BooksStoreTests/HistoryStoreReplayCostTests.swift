import BooksCore
import BooksTestSupport
import Testing

@testable import BooksStore

/// A snapshot falls due by what replaying the journal would cost: an append at the end of a large
/// file costs little (the minimum per record), an edit at its start the whole file.
@Suite struct HistoryStoreReplayCostTests {
    func runningStore(_ directory: TemporaryDirectory) throws -> HistoryStore {
        let store = try HistoryStore(directory: directory.makeDirectory("state", mode: 0o700), fileKey: "text:/b.txt")
        let context = BookLedger(document: BookDocument(parsing: Array("1|Dune|Herbert\n".utf8)))
        try store.writeSnapshot(context.saved)
        #expect(store.isRunning)
        return store
    }

    func record(at offset: Int) -> LedgerTransition {
        LedgerTransition(splice: ByteSplice(range: offset..<offset, replacement: Array("x|y|z\n".utf8)), applied: nil)
    }

    @Test func appendsAtTheEndOfALargeFileAreChargedTheMinimum() throws {
        let directory = try TemporaryDirectory(prefix: "history-cost")
        defer { directory.remove() }
        let store = try runningStore(directory)
        let size = 70_000_000  // a 1M-row file
        let perRecord = HistoryStore.replayBudgetBytes / 8192
        for _ in 0..<(HistoryStore.replayBudgetBytes / perRecord - 1) {
            try store.append([record(at: size)], contentBytes: size)
        }
        #expect(!store.snapshotDue(contentBytes: size), "8,191 appends: not yet (was due after ~30)")
        try store.append([record(at: size)], contentBytes: size)
        #expect(store.snapshotDue(contentBytes: size))
    }

    @Test func editsAtTheStartOfALargeFileAreChargedTheWholeFile() throws {
        let directory = try TemporaryDirectory(prefix: "history-cost")
        defer { directory.remove() }
        let store = try runningStore(directory)
        let size = 70_000_000
        let due = HistoryStore.replayBudgetBytes / size + 1  // 31
        for _ in 0..<(due - 1) { try store.append([record(at: 0)], contentBytes: size) }
        #expect(!store.snapshotDue(contentBytes: size))
        try store.append([record(at: 0)], contentBytes: size)
        #expect(store.snapshotDue(contentBytes: size))
    }
}

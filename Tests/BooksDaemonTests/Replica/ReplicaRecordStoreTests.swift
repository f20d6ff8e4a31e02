import BooksCore
import BooksStore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// The replica's record in the state directory: updates appended and read back in order, a
/// line cut short by a crash ignored, compaction into a snapshot, and updates a snapshot
/// already holds skipped.
@Suite struct ReplicaRecordStoreTests {
    static func entry(_ name: String, _ version: UInt64) -> ReplicaEntry {
        ReplicaEntry(owner: ReplicaBook(book: Book(id: "x", name: name, author: "A"), version: version))
    }

    static func open(_ dir: TemporaryDirectory) throws -> StateDirectory {
        try StateDirectory.open(dir.path + "/state")
    }

    @Test func updatesAreReadBackInOrder() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica")
        let directory = try Self.open(dir)
        var store = ReplicaRecordStore(directory: directory)
        var record = try store.load()
        let updates = [
            ReplicaRecordUpdate(epoch: "E", seq: 1, set: ["a": Self.entry("one", 1), "b": Self.entry("b", 1)]),
            ReplicaRecordUpdate(epoch: "E", seq: 2, set: ["a": Self.entry("two", 2)], removed: ["b"]),
        ]
        for update in updates {
            record.apply(update)
            try store.keep(update, whole: record)
        }
        var reader = ReplicaRecordStore(directory: directory)
        var loaded = try reader.load()
        #expect(loaded.generation == 2)
        loaded.generation = nil
        #expect(loaded == record)
        #expect(loaded.entries.keys.sorted() == ["a"])
    }

    @Test func aLineCutShortByACrashIsIgnored() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica")
        let directory = try Self.open(dir)
        var store = ReplicaRecordStore(directory: directory)
        var record = try store.load()
        let update = ReplicaRecordUpdate(epoch: "E", seq: 1, set: ["a": Self.entry("one", 1)])
        record.apply(update)
        try store.keep(update, whole: record)
        try directory.append(ReplicaRecordStore.logName, Array("{\"generation\":2,\"upd".utf8), durably: true)
        var reader = ReplicaRecordStore(directory: directory)
        let loaded = try reader.load()
        #expect(loaded.seq == 1)
        #expect(loaded.entries["a"] == Self.entry("one", 1))
    }

    @Test func aLongLogIsCompactedAndUpdatesTheSnapshotHoldsAreSkipped() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica")
        let directory = try Self.open(dir)
        var store = ReplicaRecordStore(directory: directory, compactionFloor: 200)
        var record = try store.load()
        var logs: [[UInt8]] = []
        for seq in 1...20 as ClosedRange<UInt64> {
            let update = ReplicaRecordUpdate(epoch: "E", seq: seq, set: ["a": Self.entry("v\(seq)", seq)])
            record.apply(update)
            logs.append(try directory.read(ReplicaRecordStore.logName) ?? [])
            try store.keep(update, whole: record)
        }
        let log = try directory.read(ReplicaRecordStore.logName) ?? []
        #expect(log.count < 400, "compacted: the log does not grow with every update")
        // A crash after a snapshot was written but before the log was emptied: the old lines
        // (older values) are skipped by their generation.
        let stale = try #require(logs.max { $0.count < $1.count })
        try directory.replace(ReplicaRecordStore.logName, with: stale + log)
        var reader = ReplicaRecordStore(directory: directory)
        let loaded = try reader.load()
        #expect(loaded.seq == 20)
        #expect(loaded.entries["a"] == Self.entry("v20", 20))
    }

    /// An update naming most of the record's books (a first copy of the owner's bucket) is
    /// written once, as the snapshot, not appended to the log and then written again by its
    /// compaction; a small update after it is a log line again.
    @Test func anUpdateNamingMostBooksIsWrittenOnceAsTheSnapshot() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica")
        let directory = try Self.open(dir)
        var store = ReplicaRecordStore(directory: directory)
        var record = try store.load()
        let copy = ReplicaRecordUpdate(
            epoch: "E", seq: 1,
            set: Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("b\($0)", Self.entry("n\($0)", 1)) }))
        record.apply(copy)
        try store.keep(copy, whole: record)
        #expect(try directory.read(ReplicaRecordStore.logName) ?? [] == [], "the copy is not in the log")
        let small = ReplicaRecordUpdate(epoch: "E", seq: 2, set: ["b1": Self.entry("changed", 2)])
        record.apply(small)
        try store.keep(small, whole: record)
        #expect(try directory.read(ReplicaRecordStore.logName)?.isEmpty == false)
        var reader = ReplicaRecordStore(directory: directory)
        var loaded = try reader.load()
        #expect(loaded.generation == 2)
        loaded.generation = nil
        #expect(loaded == record)
    }

    /// A `whole` update (what the machine asks to keep after a first copy) names no entries:
    /// the record as it is when kept is written as the snapshot, and loads back.
    @Test func aWholeUpdateWritesTheRecordAsTheSnapshot() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica")
        let directory = try Self.open(dir)
        var store = ReplicaRecordStore(directory: directory)
        var record = try store.load()
        record.epoch = "E"
        record.seq = 3
        for index in 0..<10 { record.entries["b\(index)"] = Self.entry("n\(index)", 3) }
        try store.keep(.whole(epoch: "E", seq: 3), whole: record)
        #expect(try directory.read(ReplicaRecordStore.logName) ?? [] == [], "nothing in the log")
        var reader = ReplicaRecordStore(directory: directory)
        var loaded = try reader.load()
        #expect(loaded.generation == 1)
        loaded.generation = nil
        #expect(loaded == record)
    }
}

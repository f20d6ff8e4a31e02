import BooksTestSupport
import Testing

/// The ext4 crash-state model (`CrashStateEnumerator`), on hand-written operation lists.
@Suite struct CrashStateEnumeratorTests {
    static let old = Array("old content\n".utf8)
    static let new = Array("new content, longer\n".utf8)
    /// `books.txt` is inode 1.
    static let initial = DirectoryImage(files: ["books.txt": FileImage(bytes: old)])

    func contents(_ states: CrashStates, _ name: String) -> Set<[UInt8]?> {
        Set(states.states.map { $0.image[name]?.bytes })
    }

    @Test func anUnsyncedAppendIsThereOrNot() {
        let states = CrashStateEnumerator(
            initial: Self.initial, operations: [.write(inode: 1, offset: Self.old.count, bytes: Array("y".utf8))]
        ).states()
        #expect(states.crashPoints == 2)
        #expect(states.generated == 3)  // k=0: as before; k=1: lost or persisted
        #expect(contents(states, "books.txt") == [Self.old, Self.old + Array("y".utf8)])
    }

    @Test func anAppendAcrossABlockBoundaryCanBeTornThere() {
        let start = [UInt8](repeating: 0x61, count: 10)
        let tail = [UInt8](repeating: 0x62, count: 20)
        let states = CrashStateEnumerator(
            initial: DirectoryImage(files: ["f": FileImage(bytes: start)]),
            operations: [.write(inode: 1, offset: 10, bytes: tail)], blockSize: 16
        ).states()
        #expect(contents(states, "f") == [start, start + tail.prefix(6), start + tail])
    }

    /// temp file, write, fsync, rename over, fsync of the directory (the classic atomic rewrite).
    static let atomicRewrite: [FileOperation] = [
        .create(name: ".tmp", inode: 2, mode: 0o600), .write(inode: 2, offset: 0, bytes: new),
        .sync(inode: 2, dataOnly: false), .rename(from: ".tmp", to: "books.txt"), .syncDirectory(name: ""),
        .output(label: "ack"),
    ]

    @Test func theAtomicRewriteGivesTheOldOrTheNewFileAndTheNewOneOnceAcknowledged() {
        let states = CrashStateEnumerator(initial: Self.initial, operations: Self.atomicRewrite).states()
        #expect(contents(states, "books.txt") == [Self.old, Self.new])
        for state in states.states where state.acknowledged == ["ack"] {
            #expect(state.image["books.txt"]?.bytes == Self.new)
            #expect(state.image[".tmp"] == nil)
        }
        // The temporary file may be found empty or whole, never torn.
        #expect(contents(states, ".tmp") == [nil, [], Self.new])
    }

    @Test func renameOverAnExistingFileFlushesItsDataFirst() {
        // auto_da_alloc: without the fsync, a rename that replaces a file still never exposes an
        // empty file …
        var operations = Self.atomicRewrite
        operations.remove(at: 2)
        let replaced = CrashStateEnumerator(initial: Self.initial, operations: operations).states()
        #expect(contents(replaced, "books.txt") == [Self.old, Self.new])
        // … but a rename to a new name, or an exchange, may.
        operations[2] = .rename(from: ".tmp", to: "fresh.txt")
        let fresh = CrashStateEnumerator(initial: Self.initial, operations: operations).states()
        #expect(contents(fresh, "fresh.txt").contains([]))
        operations[2] = .exchange(".tmp", "books.txt")
        let exchanged = CrashStateEnumerator(initial: Self.initial, operations: operations).states()
        #expect(contents(exchanged, "books.txt").contains([]))
    }

    @Test func aGrowingWriteIsNeverPersistedBeforeEarlierMetadata() {
        // A record created, then the book appended to, both unsynced: a state with the append
        // always has the record's name (rule 5), but not necessarily its content.
        let record = Array("record".utf8)
        let row = Array("row\n".utf8)
        let operations: [FileOperation] = [
            .create(name: "record", inode: 2, mode: 0o600), .write(inode: 2, offset: 0, bytes: record),
            .write(inode: 1, offset: Self.old.count, bytes: row),
        ]
        let states = CrashStateEnumerator(initial: Self.initial, operations: operations).states()
        let appended = states.states.filter { $0.image["books.txt"]?.bytes == Self.old + row }
        #expect(!appended.isEmpty)
        #expect(appended.allSatisfy { $0.image["record"] != nil })
        #expect(appended.contains { $0.image["record"]?.bytes == [] })
        // Synced first, the record is whole in every such state.
        let synced = CrashStateEnumerator(
            initial: Self.initial,
            operations: [operations[0], operations[1], .sync(inode: 2, dataOnly: true), operations[2]]
        ).states()
        let appendedAfterSync = synced.states.filter { $0.image["books.txt"]?.bytes == Self.old + row }
        #expect(appendedAfterSync.allSatisfy { $0.image["record"]?.bytes == record })
    }

    @Test func fdatasyncCommitsEarlierMetadataOnlyWhenItHasAJournaledChange() {
        // A rename, then fdatasync of a file that only had an in-place overwrite: no commit, the
        // rename may be lost; after an append (its size changes) the commit happens.
        let overwrite: [FileOperation] = [
            .create(name: "a", inode: 2, mode: 0o644), .syncDirectory(name: ""),
            .rename(from: "a", to: "b"), .write(inode: 1, offset: 0, bytes: Array("O".utf8)),
            .sync(inode: 1, dataOnly: true),
        ]
        let lost = CrashStateEnumerator(initial: Self.initial, operations: overwrite).states()
        #expect(lost.states.contains { $0.crashPoint == 5 && $0.image["a"] != nil })
        var append = overwrite
        append[3] = .write(inode: 1, offset: Self.old.count, bytes: Array("A".utf8))
        let committed = CrashStateEnumerator(initial: Self.initial, operations: append).states()
        #expect(!committed.states.contains { $0.crashPoint == 5 && $0.image["a"] != nil })
    }

    @Test func identicalStatesAreCountedOnceAndKeepTheLatestAcknowledgements() {
        let states = CrashStateEnumerator(
            initial: Self.initial, operations: [.output(label: "first"), .output(label: nil), .output(label: "second")]
        ).states()
        #expect(states.generated == 4)
        #expect(states.states.count == 1)
        #expect(states.states[0].acknowledged == ["first", "second"])
    }
}

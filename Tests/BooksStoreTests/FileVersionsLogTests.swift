import BooksCore
import BooksTestSupport
import Testing

@testable import BooksStore

/// The file versions kept in the state directory: read back after a restart (same epoch only),
/// bounded, a line cut short by a crash ignored.
@Suite struct FileVersionsLogTests {
    static func version(_ seq: UInt64) -> FileVersion {
        FileVersion(seq: seq, inode: 100 + seq, size: 10, mtimeSeconds: Int64(seq), mtimeNanoseconds: 5)
    }

    static func recorded(_ seqs: ClosedRange<UInt64>, capacity: Int = 256) -> FileVersions {
        var versions = FileVersions(capacity: capacity)
        for seq in seqs { versions.record(version(seq)) }
        return versions
    }

    @Test func versionsAreReadBackForTheirEpochOnly() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-versions")
        let directory = try StateDirectory.open(dir.path + "/state")
        let log = FileVersionsLog(directory: directory)
        var versions = Self.recorded(1...3)
        try log.persist(versions, epoch: "E")
        versions.record(Self.version(4))
        try log.persist(versions, epoch: "E")
        let reader = FileVersionsLog(directory: directory)
        #expect(try reader.load(epoch: "E", upTo: 10) == (1...4).map(Self.version))
        #expect(try reader.load(epoch: "E", upTo: 2) == (1...2).map(Self.version), "none newer than the history")
        #expect(try reader.load(epoch: "other", upTo: 10).isEmpty)
    }

    @Test func aLineCutShortEndsTheList() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-versions")
        let directory = try StateDirectory.open(dir.path + "/state")
        try FileVersionsLog(directory: directory).persist(Self.recorded(1...2), epoch: "E")
        let path = dir.path + "/state/" + FileVersionsLog.fileName
        let bytes = try #require(TestFiles.readBytes(path))
        try TestFiles.write(bytes + Array("{\"seq\":3,\"ino".utf8), to: path)
        #expect(try FileVersionsLog(directory: directory).load(epoch: "E", upTo: 10) == (1...2).map(Self.version))
    }

    @Test func theFileStaysBounded() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-versions")
        let directory = try StateDirectory.open(dir.path + "/state")
        let log = FileVersionsLog(directory: directory, capacity: 4)
        var versions = FileVersions(capacity: 4)
        for seq in UInt64(1)...40 {
            versions.record(Self.version(seq))
            try log.persist(versions, epoch: "E")
        }
        let text = try #require(TestFiles.readText(dir.path + "/state/" + FileVersionsLog.fileName))
        #expect(text.split(separator: "\n").count <= 1 + 2 * 4)
        #expect(
            try FileVersionsLog(directory: directory, capacity: 4).load(epoch: "E", upTo: 40).suffix(4)
                == (37...40).map(Self.version))
    }

    @Test func lockHoldersBasesAreReadBackForTheirEpochOnlyAndRestoredBehindNewerOnes() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-versions")
        let directory = try StateDirectory.open(dir.path + "/state")
        let log = FileVersionsLog(directory: directory)
        var bases = LockHolderBases()
        bases.seen("nano ann@h 1", current: Self.version(2))
        bases.seen("emacs bob@h 2", current: Self.version(5))
        try log.persistLockBases(bases, epoch: "E")
        let reader = FileVersionsLog(directory: directory)
        #expect(try reader.loadLockBases(epoch: "E", upTo: 10) == bases.entries)
        #expect(try reader.loadLockBases(epoch: "E", upTo: 4).map(\.holder) == ["nano ann@h 1"], "none newer")
        #expect(try reader.loadLockBases(epoch: "other", upTo: 10).isEmpty)
        var restarted = LockHolderBases()
        restarted.seen("emacs bob@h 2", current: Self.version(7))
        restarted.restore(try reader.loadLockBases(epoch: "E", upTo: 10))
        #expect(restarted["nano ann@h 1"] == Self.version(2), "kept across the restart")
        #expect(restarted["emacs bob@h 2"] == Self.version(7), "a holder seen since keeps what was seen")
    }
}

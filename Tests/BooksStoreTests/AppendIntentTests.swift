import BooksCore
import BooksTestSupport
import Glibc
// The append intent record was opened without O_NOFOLLOW/O_EXCL (a planted
// symlink redirected the daemon's write) and trusted blindly at start (a planted record cut rows).
import Testing

@testable import BooksStore

@Suite struct AppendIntentTests {
    @Test func aSymlinkPlantedAtTheIntentPathIsNotFollowed() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        try dir.write("victim", lines(["root:x:0:0:root:/root:/bin/bash"]))
        let intent = AppendWriter.intentPath(for: dir.file("books.txt"))
        #expect(symlink(dir.file("victim"), intent) == 0)
        let identity = try #require(FileIdentity.of(path: dir.file("books.txt")))
        try AppendWriter.append(lines(["2|Emma|Austen"]), to: dir.file("books.txt"), expected: identity)
        #expect(dir.read("victim") == lines(["root:x:0:0:root:/root:/bin/bash"]), "the write followed the planted link")
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert", "2|Emma|Austen"]))
        #expect(dir.names() == ["books.txt", "victim"])
    }

    @Test func aPlantedRecordDoesNotCutRowsAtStart() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let rows = lines(["1|a|x", "2|b|y", "3|c|z"])
        try dir.write("books.txt", rows)
        // Old format: original size, newline, "payload" = the last two rows plus one more.
        let planted = Array("6\n".utf8) + lines(["2|b|y", "3|c|z", "4|d|w"])
        let intent = AppendWriter.intentPath(for: dir.file("books.txt"))
        try dir.write(PathParts(intent).base, planted)
        chmod(intent, 0o600)
        let message = AppendWriter.recover(path: dir.file("books.txt"))
        #expect(dir.read("books.txt") == rows, "a planted record cut rows off the book file")
        #expect(message?.contains("ignored") == true, "\(message ?? "nil")")
        #expect(dir.names() == ["books.txt"], "the untrusted record was not removed")
    }

    @Test func aRecordWithTheWrongModeOrForAnotherFileIsIgnored() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|a|x"]))
        let identity = try #require(FileIdentity.of(path: path))
        let payload = lines(["2|b|y", "3|c|z"])
        try dir.write("books.txt", lines(["1|a|x"]) + payload.prefix(3))  // a torn append
        let intent = AppendWriter.intentPath(for: path)
        let record = AppendIntentRecord(
            device: identity.device, inode: identity.inode, originalSize: 6, payload: payload)
        try AppendIntentRecord.write(record, at: intent)
        chmod(intent, 0o644)
        #expect(AppendWriter.recover(path: path)?.contains("not 600") == true)
        #expect(dir.read("books.txt")?.count == 9, "an untrusted record was used")
        let other = AppendIntentRecord(
            device: identity.device, inode: identity.inode + 1, originalSize: 6, payload: payload)
        try AppendIntentRecord.write(other, at: intent)
        #expect(AppendWriter.recover(path: path)?.contains("another file") == true)
        #expect(dir.read("books.txt")?.count == 9)
        #expect(dir.names() == ["books.txt"])
    }

    @Test func aGenuineRecordStillCutsATornAppend() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|a|x"]))
        let identity = try #require(FileIdentity.of(path: path))
        let payload = lines(["2|b|y", "3|c|z"])
        let record = AppendIntentRecord(
            device: identity.device, inode: identity.inode, originalSize: 6, payload: payload)
        try AppendIntentRecord.write(record, at: AppendWriter.intentPath(for: path))
        var s = stat()
        #expect(lstat(AppendWriter.intentPath(for: path), &s) == 0 && s.st_mode & 0o7777 == 0o600)
        let fd = open(path, O_WRONLY | O_APPEND)
        _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, 8) }  // crash after 8 bytes
        close(fd)
        #expect(AppendWriter.recover(path: path) == "cut off 8 bytes of an append interrupted by a crash")
        #expect(dir.read("books.txt") == lines(["1|a|x"]))
        #expect(dir.names() == ["books.txt"])
    }

    @Test func aDamagedRecordFailsItsCheck() throws {
        let record = AppendIntentRecord(device: 1, inode: 2, originalSize: 3, payload: lines(["a|b|c"]))
        #expect(AppendIntentRecord.decode(record.encoded) == .success(record))
        var damaged = record.encoded
        damaged[damaged.count - 2] ^= 1
        #expect(AppendIntentRecord.decode(damaged) == .failure(.malformed("checksum mismatch")))
    }
}

/// Another user's file at the intent record's name (a sticky shared folder) is left alone and
/// blocks no append.
@Suite struct ForeignIntentRecordTests {
    @Test(.enabled(if: geteuid() == 0, "needs root to plant a file of another user"))
    func anotherUsersRecordIsLeftAloneAndAppendsUseARandomName() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", Array("1|a|x\n".utf8))
        let intent = AppendWriter.intentPath(for: path)
        try dir.write(PathParts(intent).base, Array("planted\n".utf8))
        chown(intent, 65534, 65534)
        let message = AppendWriter.recover(path: path)
        #expect(message?.contains("left alone") == true, "\(message ?? "nil")")
        let identity = try #require(FileIdentity.of(path: path))
        try AppendWriter.append(Array("2|b|y\n".utf8), to: path, expected: identity)
        #expect(dir.read("books.txt") == Array("1|a|x\n2|b|y\n".utf8))
        #expect(dir.read(PathParts(intent).base) == Array("planted\n".utf8), "the planted file is untouched")
        #expect(dir.names().sorted() == [PathParts(intent).base, "books.txt"], "the random-name record is removed")
        // A record under a random name left by a killed append is used at the next start.
        let torn = AppendIntentRecord(
            device: identity.device, inode: identity.inode, originalSize: 12, payload: Array("3|c|z\n".utf8))
        let record = try AppendIntentRecord.writeUnique(torn, prefix: intent + "-")
        try TestFiles.append(Array("3|c".utf8), to: path)
        #expect(AppendWriter.recover(path: path)?.contains("cut off") == true)
        #expect(dir.read("books.txt") == Array("1|a|x\n2|b|y\n".utf8))
        #expect(!TestFiles.names(in: dir.path).contains(PathParts(record).base))
    }
}

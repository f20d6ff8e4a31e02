import BooksCore
import BooksTestSupport
import Glibc
import Testing

// Regression for the lost update found by Tests/IntegrationTests/Reliability/LostUpdateTests:
// a hand edit landing between the writer's last identity check and its rename was overwritten.
// The writer now exchanges the entries and proves the replaced file is the version it read.
@testable import BooksStore

@Suite struct AtomicFileWriterRaceTests {
    func contents(_ path: String) -> String {
        guard case .present(let bytes, _) = FileReader.read(path) else { return "<none>" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aReplacedFileWhoseContentIsNotTheVersionReadIsPutBack() throws {
        let scratch = try TemporaryDirectory(prefix: "booksstore-race")
        defer { scratch.remove() }
        let path = try scratch.write("books.txt", "a|1|x\n")
        guard case .present(_, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        // Simulate an edit that the metadata check cannot see (same inode, size and times):
        // the version the write was planned on was different from what is on disk now.
        let planned = Array("a|0|x\n".utf8)
        #expect(throws: BookFileError.changedDuringWrite(path: path)) {
            try AtomicFileWriter.write(
                Array("a|2|client\n".utf8), to: path, expected: identity,
                isExpectedContent: { $0 == planned })
        }
        #expect(contents(path) == "a|1|x\n", "the concurrent edit was not put back")
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: path).isEmpty, "temporary file left behind")
    }

    @Test func aFileReplacedByRenameAfterTheReadIsNotOverwritten() throws {
        let scratch = try TemporaryDirectory(prefix: "booksstore-race")
        defer { scratch.remove() }
        let path = try scratch.write("books.txt", "a|1|x\n")
        guard case .present(_, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        try scratch.write("edit", "a|1|x\n")  // same content, new inode (an editor's rename-over)
        rename(scratch.file("edit"), path)
        #expect(throws: BookFileError.changedDuringWrite(path: path)) {
            try AtomicFileWriter.write(
                Array("a|2|client\n".utf8), to: path, expected: identity,
                isExpectedContent: { $0 == Array("a|1|x\n".utf8) })
        }
        #expect(contents(path) == "a|1|x\n")
    }

    @Test func theVersionReadIsReplaced() throws {
        let scratch = try TemporaryDirectory(prefix: "booksstore-race")
        defer { scratch.remove() }
        let path = try scratch.write("books.txt", "a|1|x\n")
        guard case .present(let read, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        let written = try AtomicFileWriter.write(
            Array("a|2|client\n".utf8), to: path, expected: identity,
            isExpectedContent: { $0 == read })
        #expect(contents(path) == "a|2|client\n")
        #expect(written.identity == FileIdentity.of(path: path))
        #expect(written.lateEdit == nil)
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: path).isEmpty)
    }

    /// A process that opened the file for writing before the swap (an editor between its
    /// `open` and its `write`) would write into the replaced version: the writer sees it has the
    /// file open, puts it back and refuses, and that process's write then lands in the file.
    @Test(.enabled(if: ReplacedVersionGuardTests.leasesAvailable, "file leases are not available here"))
    func aReplacedFileStillOpenForWritingIsPutBack() throws {
        let scratch = try TemporaryDirectory(prefix: "booksstore-race")
        defer { scratch.remove() }
        let path = try scratch.write("books.txt", "a|1|x\n")
        guard case .present(let read, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        let editor = open(path, O_WRONLY)
        #expect(editor >= 0)
        #expect(throws: BookFileError.changedDuringWrite(path: path)) {
            try AtomicFileWriter.write(
                Array("a|2|client\n".utf8), to: path, expected: identity,
                isExpectedContent: { $0 == read })
        }
        _ = ftruncate(editor, 0)
        _ = "a|3|hand\n".withCString { pwrite(editor, $0, strlen($0), 0) }
        close(editor)
        #expect(contents(path) == "a|3|hand\n", "the editor's write went to a replaced file")
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: path).isEmpty, "temporary file left behind")
    }
}

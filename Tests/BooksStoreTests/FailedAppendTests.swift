import BooksCore
import BooksTestSupport
import Glibc
// A failed append cut the file back to its old size with `ftruncate`, which
// also cut a row another process appended at that moment.
import Testing

@testable import BooksStore

@Suite struct FailedAppendTests {
    /// A `write(2)` that writes `first` bytes, then lets `between` run and fails with ENOSPC.
    final class FailingWriter {
        var calls = 0
        let first: Int
        let between: () -> Void
        init(first: Int, between: @escaping () -> Void) {
            self.first = first
            self.between = between
        }
        func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
            calls += 1
            if calls == 1 { return Glibc.write(fd, bytes, min(first, count)) }
            between()
            errno = ENOSPC
            return -1
        }
    }

    @Test func aRowAppendedByAnotherProcessWhenTheAppendFailsIsNotCut() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        let identity = try #require(FileIdentity.of(path: path))
        let writer = FailingWriter(first: 4) {
            let other = open(path, O_WRONLY | O_APPEND)
            _ = "9|Other|Row\n".withCString { Glibc.write(other, $0, strlen($0)) }
            close(other)
        }
        do {
            _ = try AppendWriter.append(lines(["2|Emma|Austen"]), to: path, expected: identity, writer: writer.write)
            Issue.record("the append did not fail")
        } catch {
            #expect(error.errnoCode == ENOSPC, "\(error)")
        }
        #expect(
            dir.read("books.txt") == Array("1|Dune|Herbert\n2|Em9|Other|Row\n".utf8), "another process's row was cut")
        #expect(dir.names() == ["books.txt"], "the intent record was left")
    }

    @Test func aFailedAppendAloneIsCutBack() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        let identity = try #require(FileIdentity.of(path: path))
        let writer = FailingWriter(first: 4) {}
        #expect(throws: BookFileError.system(path: path, operation: "append to", errno: ENOSPC)) {
            _ = try AppendWriter.append(lines(["2|Emma|Austen"]), to: path, expected: identity, writer: writer.write)
        }
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert"]))
        #expect(dir.names() == ["books.txt"])
    }
}

import BooksCore
import BooksTestSupport
import Glibc
// Undoing a refused swap moved whatever was at the path by then (a second
// editor's `mv` during the content check) to the temporary name, which was then unlinked.
import Testing

@testable import BooksStore

@Suite struct SwapBackTests {
    @Test func anEditMovedOntoThePathDuringTheCheckIsNeverDeleted() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["a|1|x"]))
        guard case .present(_, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        try dir.write("second", lines(["a|3|second editor"]))
        do {
            try AtomicFileWriter.write(
                lines(["a|2|client"]), to: path, expected: identity,
                isExpectedContent: { _ in
                    // The check runs while the daemon's file is at the path: a second editor's `mv`
                    // lands now, and the check fails (the first version was edited in place).
                    rename(dir.file("second"), path)
                    return false
                })
            Issue.record("the write was not refused")
        } catch {
            #expect(error.description.contains("kept in \(path).recovered-"), "\(error)")
        }
        #expect(dir.read("books.txt") == lines(["a|3|second editor"]), "the newest edit is not in place")
        let names = dir.names()
        #expect(names.count == 2 && names.contains { $0.hasPrefix("books.txt.recovered-") }, "\(names)")
        let kept = names.first { $0.hasPrefix("books.txt.recovered-") }
        #expect(kept.flatMap { dir.read($0) } == lines(["a|1|x"]), "the version it replaced was not kept")
    }

    @Test func aRefusedSwapRemovesOnlyTheDaemonsOwnFile() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["a|1|x"]))
        guard case .present(_, let identity) = FileReader.read(path) else {
            Issue.record("read")
            return
        }
        #expect(throws: BookFileError.changedDuringWrite(path: path)) {
            try AtomicFileWriter.write(
                lines(["a|2|client"]), to: path, expected: identity, isExpectedContent: { _ in false })
        }
        #expect(dir.read("books.txt") == lines(["a|1|x"]))
        #expect(dir.names() == ["books.txt"])
    }
}

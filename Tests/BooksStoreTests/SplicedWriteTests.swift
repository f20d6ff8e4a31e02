import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksStore

/// A save that changes or deletes rows of a text file is written from the old bytes around the
/// change (no rendered copy of the file), and the version it replaces is checked chunk by chunk
/// against the exact bytes planned on (`AtomicFileWriter.write(pieces:…expectedContent:)`).
@Suite struct SplicedWriteTests {
    static let text =
        "# shelf\r\n1|Dune|Herbert\r\n\r\nbad|line|with|fields\r\n2|Emma|Austen\r\n3|Ulysses|Joyce\r\n4|Kim|Kipling"

    @Test func anUpdateAndADeleteKeepTheLayoutAndReportTheirSplice() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-spliced")
        defer { dir.remove() }
        try dir.write("books.txt", Self.text)
        let store = TextBookStore(path: dir.file("books.txt"))
        guard let (canonical, identity) = fetchedContent(store) else { return }
        let document = BookDocument(parsing: canonical)
        let result = try store.save(
            SaveRequest(updated: [Book(id: "4", name: "Kim", author: "R. Kipling")], deleted: ["2"]),
            onto: document, expected: identity)
        let expected = Array(
            "# shelf\r\n1|Dune|Herbert\r\n\r\nbad|line|with|fields\r\n3|Ulysses|Joyce\r\n4|Kim|R. Kipling".utf8)
        #expect(dir.read("books.txt") == expected)
        #expect(result.content(basedOn: document.bytes) == expected)
        #expect(result.splice.range.lowerBound == ByteSplice(from: document.bytes, to: expected).range.lowerBound)
        #expect(result.identity == FileIdentity.of(path: dir.file("books.txt")))
        #expect(dir.names() == ["books.txt"], "no temporary file is left behind")
    }

    @Test func piecesAreWrittenInOrderOverTheExactVersionPlannedOn() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-spliced")
        defer { dir.remove() }
        let path = try dir.write("books.txt", "a|1|x\n")
        guard let (read, identity) = fetchedContent(TextBookStore(path: path)) else { return }
        let new = Array("a|2|client\nb|3|y\n".utf8)
        let written = try AtomicFileWriter.write(
            pieces: [new[..<4], new[4..<11], new[11...]], to: path, expected: identity, expectedContent: read)
        #expect(dir.read("books.txt") == new)
        #expect(written.identity == FileIdentity.of(path: path))
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: path).isEmpty)
    }

    @Test func aReplacedVersionThatIsNotTheExactOnePlannedOnIsPutBack() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-spliced")
        defer { dir.remove() }
        let path = try dir.write("books.txt", "a|1|x\n")
        guard let (_, identity) = fetchedContent(TextBookStore(path: path)) else { return }
        // An edit the metadata check cannot see: the version planned on differs from the file.
        #expect(throws: BookFileError.changedDuringWrite(path: path)) {
            try AtomicFileWriter.write(
                pieces: [Array("a|2|client\n".utf8)[...]], to: path, expected: identity,
                expectedContent: Array("a|0|x\n".utf8))
        }
        #expect(dir.read("books.txt") == Array("a|1|x\n".utf8), "the concurrent edit was not put back")
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: path).isEmpty, "temporary file left behind")
    }
}

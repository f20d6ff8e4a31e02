import BooksTestSupport
import Testing

@testable import BooksCore

@Suite struct RowEscapingTests {
    @Test func plainRowsAreWrittenByteForByte() {
        let row = RowEscaping.row(for: Book(id: "1", name: "Dune", author: "Frank Herbert"))
        #expect(String(decoding: row, as: UTF8.self) == "1|Dune|Frank Herbert")
    }

    @Test func specialCharactersAreEscaped() {
        let row = RowEscaping.row(for: Book(id: "7", name: "a|b\\c", author: "x\ny\tz\r"))
        #expect(String(decoding: row, as: UTF8.self) == "7|a\\|b\\\\c|x\\ny\\tz\\r")
    }

    @Test func unknownEscapesAndTrailingBackslashReadAsWritten() {
        let doc = BookDocument(parsing: Array("1|C:\\path\\x|end\\\n".utf8))
        #expect(doc.book(id: "1") == Book(id: "1", name: "C:\\path\\x", author: "end\\"))
    }

    @Test func randomStringsRoundTrip() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let book = Book(
                id: "id-\(Int.random(in: 0..<1_000_000, using: &rng))",
                name: Samples.randomString(&rng), author: Samples.randomString(&rng))
            var bytes = RowEscaping.row(for: book)
            bytes.append(0x0A)
            let doc = BookDocument(parsing: bytes)
            #expect(doc.bookCount == 1)
            let read = doc.book(id: book.id)
            #expect(read?.name.utf8.elementsEqual(book.name.utf8) == true, "name \(book.name.debugDescription)")
            #expect(read?.author.utf8.elementsEqual(book.author.utf8) == true, "author \(book.author.debugDescription)")
        }
    }
}

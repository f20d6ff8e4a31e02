import BooksTestSupport
import Testing

@testable import BooksCore

@Suite struct BookFileFormatTests {
    @Test func jsonRoundTripsRandomStrings() throws {
        var rng = SplitMix64(seed: 7)
        var books: [Book] = []
        for k in 0..<300 {
            books.append(Book(id: "id-\(k)", name: Samples.randomString(&rng), author: Samples.randomString(&rng)))
        }
        var text: [UInt8] = []
        for book in books { text += RowEscaping.row(for: book) + [0x0A] }
        let json = BookFileFormat.json.fileBytes(for: BookDocument(parsing: text))
        let back = BookDocument(parsing: try BookFileFormat.json.canonicalText(from: json))
        #expect(back.books.count == books.count)
        for (a, b) in zip(back.books, books) {
            #expect(
                a.id == b.id && a.name.utf8.elementsEqual(b.name.utf8) && a.author.utf8.elementsEqual(b.author.utf8))
        }
    }

    @Test func invalidJSONIsAnError() {
        #expect(throws: BookFormatError.self) {
            try BookFileFormat.json.canonicalText(from: Array("[{\"id\": 1}]".utf8))
        }
        #expect(throws: BookFormatError.self) { try BookFileFormat.json.canonicalText(from: Array("{".utf8)) }
    }

    @Test func emptyJSONFileHasNoBooks() throws {
        #expect(try BookFileFormat.json.canonicalText(from: Array(" \n".utf8)).isEmpty)
        #expect(BookFileFormat.json.fileBytes(for: BookDocument()) == Array("[]\n".utf8))
    }

    @Test func textFormatIsIdentity() throws {
        let bytes = Samples.file(["1|A|B", "bad"])
        #expect(try BookFileFormat.text.canonicalText(from: bytes) == bytes)
    }
}

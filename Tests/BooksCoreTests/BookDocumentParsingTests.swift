import Testing

@testable import BooksCore

@Suite struct BookDocumentParsingTests {
    @Test func readsTextStoreSampleRows() {
        let doc = BookDocument(parsing: Samples.file(["1|Dune|Frank Herbert", "2|Emma|Jane Austen"]))
        #expect(
            doc.books == [
                Book(id: "1", name: "Dune", author: "Frank Herbert"),
                Book(id: "2", name: "Emma", author: "Jane Austen"),
            ])
        #expect(doc.lineEnding == .lf)
        #expect(doc.badLines.isEmpty)
    }

    @Test func commentsAndBlankLinesAreNotBooks() {
        let doc = BookDocument(parsing: Samples.file(["# my books", "", "   ", "  # indented", "1|A|B"]))
        #expect(doc.bookCount == 1)
        #expect(doc.badLineCount == 0)
        #expect(doc.lineCount == 5)
    }

    @Test func crlfFilesAreReadAndDetected() {
        let doc = BookDocument(parsing: Samples.file(["1|A|B", "2|C|D"], crlf: true))
        #expect(doc.lineEnding == .crlf)
        #expect(doc.book(id: "2") == Book(id: "2", name: "C", author: "D"))
    }

    @Test func badLinesAreReportedWithLineNumbersAndReasons() {
        var rows = [
            "1|A|B", "just text", "|No|Id", "1|Dup|Row", "a|b|c|d", "x|" + String(repeating: "y", count: 100) + "|z",
        ]
        rows.append("0f8fad5b-d9cb-469f-a165-70867728950e|Only two")
        let doc = BookDocument(parsing: Samples.file(rows) + [0xFF, 0xFE, 0x7C, 0x61, 0x7C, 0x62, 0x0A], lineLimit: 50)
        let bad = doc.badLines
        #expect(bad.map(\.lineNumber) == [2, 3, 4, 5, 6, 7, 8])
        #expect(bad[0].reason == .wrongFieldCount(1))
        #expect(bad[1].reason == .emptyID)
        #expect(bad[2].reason == .duplicateID("1", firstLine: 1))
        #expect(bad[3].reason == .wrongFieldCount(4))
        #expect(bad[4].reason == .tooLong(limit: 50))
        #expect(bad[5].reason == .missingField(id: "0f8fad5b-d9cb-469f-a165-70867728950e"))
        #expect(bad[6].reason == .invalidUTF8)
        #expect(doc.bookCount == 1)
        #expect(doc.book(id: "1")?.name == "A")
    }

    @Test func twoFieldRowIsANewBookUnlessItNamesAKnownID() {
        let previous = BookDocument(parsing: Samples.file(["b-1|Dune|Herbert"]))
        let doc = BookDocument(parsing: Samples.file(["Emma|Jane Austen", "b-1|Dune"]), previous: previous)
        #expect(doc.newBookRows == [NewBookRow(lineIndex: 0, name: "Emma", author: "Jane Austen")])
        #expect(doc.badLines.map(\.reason) == [.missingField(id: "b-1")])
    }

    @Test func fileWithoutFinalNewline() {
        let doc = BookDocument(parsing: Array("1|A|B\n2|C|D".utf8))
        #expect(doc.bookCount == 2)
        #expect(doc.book(id: "2")?.author == "D")
    }
}

import BooksCore
import Testing

/// `BookDocument.splice(replacingLines:)` — the change of an update or delete computed from the
/// edited lines alone — gives exactly what rendering the whole file gives.
@Suite struct BookDocumentSpliceTests {
    static let text = Array(
        "# shelf\r\n1|Dune|Herbert\r\n\r\nbad|line|with|fields\r\n2|Emma|Austen\r\n3|Ulysses|Joyce\r\n4|Kim|Kipling"
            .utf8)

    @Test(arguments: [
        [DocumentEdit.replace(line: 1, with: Book(id: "1", name: "Dune Messiah", author: "Herbert"))],
        [.delete(line: 4)],
        [.delete(line: 6)],
        [.replace(line: 6, with: Book(id: "4", name: "K", author: "Kipling")), .delete(line: 1)],
        [.replace(line: 4, with: Book(id: "2", name: "Emma", author: "Austen"))],
        [.replace(line: 5, with: Book(id: "3", name: "Ulysses|2", author: "Joyce")), .delete(line: 4)],
    ])
    func theSpliceIsTheRenderedChange(edits: [DocumentEdit]) throws {
        let document = BookDocument(parsing: Self.text)
        let splice = try #require(document.splice(replacingLines: edits))
        let rendered = document.rendering(edits)
        #expect(splice.applied(to: Self.text) == rendered)
        if rendered != Self.text {
            // It starts at the first changed byte (what an in-place write overwrites from).
            #expect(splice.range.lowerBound == ByteSplice(from: Self.text, to: rendered).range.lowerBound)
        } else {
            #expect(splice.isEmpty)
        }
    }

    @Test func anAppendHasNoPlaceInTheFile() {
        let document = BookDocument(parsing: Self.text)
        #expect(document.splice(replacingLines: [.append(Book(id: "5", name: "N", author: "A"))]) == nil)
        #expect(document.splice(replacingLines: []) == nil)
    }
}

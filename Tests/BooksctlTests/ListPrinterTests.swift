import BooksClient
import BooksCore
import FoundationEssentials
import Testing

@testable import booksctl

/// `booksctl list` output built page by page, and the resync line of a feed without mirror.
@Suite struct ListPrinterTests {
    let books = (0..<5).map { Book(id: "id\($0)", name: "Name \"\($0)\"\t", author: "Zoë") }

    func print(_ format: ListPrinter.Format, pages: [[Book]], total: Int) -> String {
        var printer = ListPrinter(format: format)
        var out: [UInt8] = []
        for page in pages { out += printer.page(page) }
        out += printer.finish(total: total)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func jsonLinesAndArrayDoNotDependOnHowThePagesFall() throws {
        let splits = [[books], [Array(books[0..<2]), [], Array(books[2...])], books.map { [$0] }]
        for pages in splits {
            let lines = print(.jsonLines, pages: pages, total: 5)
            #expect(lines.split(separator: "\n").count == 5 && lines.hasSuffix("\n"))
            let decoded = try lines.split(separator: "\n").map {
                try JSONDecoder().decode(Book.self, from: Data($0.utf8))
            }
            #expect(decoded == books)
            let array = print(.jsonArray, pages: pages, total: 5)
            #expect(try JSONDecoder().decode([Book].self, from: Data(array.utf8)) == books)
            #expect(array == "[\n" + lines.split(separator: "\n").map { "  " + $0 }.joined(separator: ",\n") + "\n]\n")
        }
        #expect(print(.jsonArray, pages: [[], []], total: 0) == "[]\n")
        #expect(print(.jsonLines, pages: [[]], total: 0) == "")
    }

    @Test func tableHasOneHeaderAndACount() {
        let table = print(.table(Style(enabled: false)), pages: [Array(books[0..<2]), Array(books[2...])], total: 9)
        #expect(table.components(separatedBy: "ID").count - 1 == 1, "one header, before the first page")
        #expect(table.components(separatedBy: "\n").count - 1 == 7, "header, five books, count")
        #expect(table.hasSuffix("5 of 9 books\n"))
        #expect(print(.tabSeparated, pages: [books], total: 5).split(separator: "\n").count == 5)
    }

    @Test func resyncMarkerLine() {
        let update = MirrorUpdate(
            epoch: "E2", seq: 4, source: nil, time: nil, origin: .resyncRequired, changes: ChangeSet(),
            reason: "history-trimmed")
        let json = ChangeLineFormatter(json: true, style: Style(enabled: false)).lines(for: update)
        #expect(
            json == [
                #"{"seq":4,"kind":"resync","epoch":"E2","reason":"history-trimmed","source":"resync","time":null}"#
            ])
        let text = ChangeLineFormatter(json: false, style: Style(enabled: false)).lines(for: update)
        #expect(text.count == 1 && text[0].hasPrefix("#4 ! resync (history-trimmed)"))
    }
}

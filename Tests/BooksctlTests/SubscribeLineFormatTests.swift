import BooksClient
import BooksCore
import Testing

@testable import booksctl

@Suite struct SubscribeLineFormatTests {
    let plain = ChangeLineFormatter(json: true, style: Style(enabled: false))

    @Test func keyOrderAndKinds() {
        let a = Book(id: "a", name: "Dune", author: "Herbert")
        let a2 = Book(id: "a", name: "Dune Messiah", author: "Herbert")
        let b = Book(id: "b", name: "Emma", author: "Austen")
        let c = Book(id: "c", name: "Ulysses", author: "Joyce")
        let update = MirrorUpdate(
            epoch: "E", seq: 7, source: .client, time: nil, origin: .live,
            changes: ChangeSet(inserted: [b], updated: [BookUpdate(old: a, new: a2)], deleted: [c]))
        #expect(
            plain.lines(for: update) == [
                #"{"seq":7,"kind":"insert","id":"b","name":"Emma","author":"Austen","source":"client","#
                    + #""epoch":"E","time":null}"#,
                #"{"seq":7,"kind":"update","id":"a","name":"Dune Messiah","author":"Herbert","source":"client","#
                    + #""oldName":"Dune","oldAuthor":"Herbert","epoch":"E","time":null}"#,
                #"{"seq":7,"kind":"delete","id":"c","name":"Ulysses","author":"Joyce","source":"client","#
                    + #""epoch":"E","time":null}"#,
            ])
    }

    @Test func escaping() {
        let book = Book(id: "x\"1", name: "Tab\there\nnew \\ back \u{1}", author: "Zoë ☃ \u{2028}")
        let line = ChangeLineFormatter.jsonLine(seq: 1, kind: "insert", book: book, old: nil, source: "file")
        #expect(
            line
                == #"{"seq":1,"kind":"insert","id":"x\"1","name":"Tab\there\nnew \\ back \u0001","#
                + #""author":"Zoë ☃ \u2028","source":"file"}"#
        )
        #expect(!line.contains("\n"))
    }

    @Test func sourceOfResyncAndSnapshot() {
        let b = Book(id: "b", name: "n", author: "a")
        let resync = MirrorUpdate(
            epoch: "E", seq: 9, source: nil, time: nil, origin: .resync, changes: ChangeSet(inserted: [b]))
        #expect(
            plain.lines(for: resync) == [
                #"{"seq":9,"kind":"insert","id":"b","name":"n","author":"a","source":"resync","epoch":"E","time":null}"#
            ])
        let initial = MirrorUpdate(
            epoch: "E", seq: 3, source: nil, time: nil, origin: .snapshot, changes: ChangeSet(inserted: [b]))
        #expect(plain.lines(for: initial).first?.hasSuffix(#""source":"snapshot","epoch":"E","time":null}"#) == true)
    }

    @Test func humanLinesWithoutColourHaveNoEscapes() {
        let human = ChangeLineFormatter(json: false, style: Style(enabled: false))
        let update = MirrorUpdate(
            epoch: "E", seq: 2, source: .file, time: nil, origin: .live,
            changes: ChangeSet(inserted: [Book(id: "i", name: "N\nx", author: "A")]))
        let lines = human.lines(for: update)
        #expect(lines == ["#2 + insert i  N\\nx — A  (file)"])
        let coloured = ChangeLineFormatter(json: false, style: Style(enabled: true)).lines(for: update)
        #expect(coloured[0].contains("\u{1B}[32m"))
    }

    @Test func listOutputs() {
        let books = [Book(id: "1", name: "A\tb", author: "C")]
        #expect(BookTable.tabSeparated(books) == ["1\tA\\tb\tC"])
        #expect(BookTable.json(books) == "[\n  {\"id\":\"1\",\"name\":\"A\\tb\",\"author\":\"C\"}\n]")
        #expect(BookTable.json([]) == "[]")
        #expect(BookTable.aligned(books, style: Style(enabled: false)) == ["ID  NAME  AUTHOR", "1   A\\tb  C"])
    }
}

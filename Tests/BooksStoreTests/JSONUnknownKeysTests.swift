import BooksCore
import BooksTestSupport
import Glibc
// The JSON store dropped unknown keys (isbn, notes, …) from every book on the
// first client write.
import Testing

@testable import BooksStore

@Suite struct JSONUnknownKeysTests {
    let file = #"""
        [
          {"id": "1", "isbn": "978-0441013593", "name": "Dune", "author": "Herbert", \#
        "notes": {"read": true, "tags": ["sf", "a \"b\""]}},
          {"id": "2", "name": "Emma", "author": "Austen", "year": 1815, "x\u0069d": null},
          {"id": "3", "name": "Ulysses", "author": "Joyce"}
        ]
        """#

    @Test func unknownKeysAreCarriedThroughARewrite() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.json", Array(file.utf8))
        let store = JSONBookStore(path: dir.file("books.json"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        _ = try store.save(
            SaveRequest(
                inserted: [.init(temporaryID: "t", id: "4", name: "New", author: "Book")],
                updated: [Book(id: "1", name: "Dune", author: "Frank Herbert")], deleted: ["3"]),
            onto: BookDocument(parsing: canonical), expected: identity)
        let written = String(decoding: dir.read("books.json") ?? [], as: UTF8.self)
        #expect(
            written == #"""
                [
                  {"id": "1", "name": "Dune", "author": "Frank Herbert", "isbn": "978-0441013593", \#
                "notes": {"read": true, "tags": ["sf", "a \"b\""]}},
                  {"id": "2", "name": "Emma", "author": "Austen", "year": 1815, "x\u0069d": null},
                  {"id": "4", "name": "New", "author": "Book"}
                ]

                """#)
        guard case .present(let again, _) = store.fetch() else {
            Issue.record("fetch again")
            return
        }
        #expect(BookDocument(parsing: again).books.map(\.author) == ["Frank Herbert", "Austen", "Book"])
    }

    @Test func aHandEditOfAnUnknownKeyIsKeptByTheNextWrite() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.json", Array(#"[{"id": "1", "name": "Dune", "author": "Herbert", "isbn": "old"}]"#.utf8))
        let store = JSONBookStore(path: dir.file("books.json"))
        guard case .present(let canonical, _) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let document = BookDocument(parsing: canonical)
        try dir.write("books.json", Array(#"[{"id": "1", "name": "Dune", "author": "Herbert", "isbn": "new"}]"#.utf8))
        guard case .unchanged(let identity) = store.compare(with: document) else {
            Issue.record("compare")
            return
        }
        _ = try store.save(
            SaveRequest(inserted: [.init(temporaryID: "t", id: "2", name: "A", author: "B")]),
            onto: document, expected: identity)
        let written = String(decoding: dir.read("books.json") ?? [], as: UTF8.self)
        #expect(written.contains(#""author": "Herbert", "isbn": "new"}"#), "\(written)")
    }

    @Test func filesWithoutUnknownKeysAreWrittenAsBefore() throws {
        let bytes = Array(#"[{"id": "1", "name": "Dune", "author": "Herbert"}]"#.utf8)
        let extras = try JSONExtraMembers.scan(bytes)
        #expect(extras.byID.isEmpty)
        let document = BookDocument(parsing: try BookFileFormat.json.canonicalText(from: bytes))
        #expect(extras.fileBytes(for: document) == BookFileFormat.json.fileBytes(for: document))
        #expect(try JSONExtraMembers.scan(Array("  \n".utf8)).byID.isEmpty)
        #expect(try JSONExtraMembers.scan(Array("[]".utf8)).byID.isEmpty)
        #expect(try JSONExtraMembers.scan(Array("[{}]".utf8)).byID.isEmpty)
    }
    @Test func anEditOfUnknownMembersAloneIsHandedOutOnceByTheNextRead() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let books = #"{"id": "2", "name": "Emma", "author": "Austen"}, {"id": "3", "name": "U", "author": "J", "n": 1}"#
        try dir.write(
            "books.json", Array(#"[{"id": "1", "name": "Dune", "author": "H", "isbn": "a"}, \#(books)]"#.utf8))
        let store = JSONBookStore(path: dir.file("books.json"))
        guard case .present(let canonical, _) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        #expect(store.takeUnknownMemberEdits().isEmpty, "the first read is the baseline")
        // isbn of 1 edited, a member added to 2, one removed from 3: the canonical text is the same.
        let edited = #"""
            [{"id": "1", "name": "Dune", "author": "H", "isbn": "b"}, \#
            {"id": "2", "name": "Emma", "author": "Austen", "year": 1815}, {"id": "3", "name": "U", "author": "J"}]
            """#
        try dir.write("books.json", Array(edited.utf8))
        guard case .unchanged = store.compare(with: BookDocument(parsing: canonical)) else {
            Issue.record("compare: the canonical text changed")
            return
        }
        #expect(store.takeUnknownMemberEdits() == ["1", "2", "3"])
        #expect(store.takeUnknownMemberEdits().isEmpty, "handed out once")
        _ = store.compare(with: BookDocument(parsing: canonical))
        #expect(store.takeUnknownMemberEdits().isEmpty, "nothing edited since")
        #expect(TextBookStore(path: dir.file("books.json")).takeUnknownMemberEdits().isEmpty)
    }
}

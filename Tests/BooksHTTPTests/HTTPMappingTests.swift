import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksHTTP

/// Bodies into protocol requests, replies into responses, and the streamed list body.
@Suite struct HTTPMappingTests {
    static let hobbit = Book(id: "b1", name: "The Hobbit", author: "Tolkien")

    @Test func bodiesBecomeTheSocketsRequests() throws {
        let insert = try HTTPRequestBuilder.request(
            for: .insertBook(store: "s"), body: Array(#"{"name":"Dune","author":"Herbert"}"#.utf8), id: "1"
        ).get()
        #expect(
            insert == Request(id: "1", op: .insert, books: [BookDraft(name: "Dune", author: "Herbert")], store: "s"))
        let update = try HTTPRequestBuilder.request(
            for: .updateBook(store: "s", id: "b1", ifMatch: 4), body: Array(#"{"name":"X"}"#.utf8), id: "2"
        ).get()
        #expect(update.patches == [BookPatch(id: "b1", name: "X", expectedVersion: 4)])
        let delete = try HTTPRequestBuilder.request(
            for: .deleteBook(store: "s", id: "b1", ifMatch: 2), body: [], id: "3"
        ).get()
        #expect(delete.expectedVersions == [2])
        let save = try HTTPRequestBuilder.request(
            for: .save(store: "s"),
            body: Array(#"{"inserted":[{"tempId":"t1","name":"A","author":"B"}],"deleted":[{"id":"b1"}]}"#.utf8),
            id: "4"
        ).get()
        #expect(save.inserted == [BookInsertion(tempId: "t1", name: "A", author: "B")])
        #expect(save.deleted == [BookDeletion(id: "b1")])
    }

    @Test func badBodiesAre400() {
        let bodies: [[UInt8]] = [
            [], Array("not json".utf8), [0x7B, 0xFF, 0xFE, 0x7D], Array(#"{"name":"only"}"#.utf8),
            Array(#"{"name":1,"author":"x"}"#.utf8), Array(String(repeating: "[", count: 100).utf8),
        ]
        for body in bodies {
            guard
                case .failure(let response) = HTTPRequestBuilder.request(
                    for: .insertBook(store: "s"), body: body, id: "1")
            else {
                Issue.record("accepted \(body)")
                continue
            }
            #expect(response.status == 400)
        }
        if case .failure(let response) = HTTPRequestBuilder.request(
            for: .insertBook(store: "s"), body: [0x7B, 0xFF, 0x7D], id: "1")
        {
            #expect(response.header("Content-Type") == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self).contains("invalid-utf8"))
        }
    }

    @Test func repliesBecomeStatusesAndETags() throws {
        let got = HTTPReplyMapper.response(
            for: .getBook(store: "s", id: "b1"), reply: .success("1", ReplyResult(books: [Self.hobbit], versions: [3])))
        #expect(got.status == 200)
        #expect(got.header("ETag") == "\"3\"")
        let book = try JSONDecoder().decode(HTTPBook.self, from: Data(got.body))
        #expect(book == HTTPBook(id: "b1", name: "The Hobbit", author: "Tolkien", version: 3))

        let created = HTTPReplyMapper.response(
            for: .insertBook(store: "my store"), reply: .success("1", ReplyResult(books: [Self.hobbit], versions: [1])))
        #expect(created.status == 201)
        #expect(created.header("Location") == "/v1/stores/my%20store/books/b1")

        let stale = HTTPReplyMapper.response(
            for: .updateBook(store: "s", id: "b1", ifMatch: 1),
            reply: .failure("1", ProtocolError(.conflict, "at 3", current: Self.hobbit, currentVersion: 3)))
        #expect(stale.status == 412)
        #expect(stale.header("ETag") == "\"3\"")
        let body = try JSONDecoder().decode(HTTPErrorBody.self, from: Data(stale.body))
        #expect(body.error.current == HTTPBook(id: "b1", name: "The Hobbit", author: "Tolkien", version: 3))

        let missing = HTTPReplyMapper.response(
            for: .getBook(store: "s", id: "x"), reply: .failure("1", ProtocolError(.notFound, "no book x")))
        #expect(missing.status == 404)
        #expect(
            HTTPReplyMapper.response(
                for: .deleteBook(store: "s", id: "b1", ifMatch: nil), reply: .success("1", ReplyResult())
            ).status == 204)
        #expect(HTTPReplyMapper.status(of: .storeUnavailable, route: .stores) == 503)
        #expect(HTTPReplyMapper.status(of: .conflict, route: .save(store: "s")) == 409)
    }

    /// 25 books `b0`…`b24`.
    static let context = BookLedger(
        document: BookDocument(parsing: Array((0..<25).map { "b\($0)|Name \($0)|Author\n" }.joined().utf8)))

    static func cursor(offset: Int, limit: Int) throws -> BookCursor {
        try BookCursor(context: context, query: BookQuery(limit: limit, offset: offset))
    }

    @Test func theListBodyIsTheResultWithANextToken() throws {
        for size in [16, 1 << 16] {
            let encoder = BookStreamEncoder(
                .listReply(id: "h1"), epoch: "E", seq: 9, cursor: try Self.cursor(offset: 10, limit: 10),
                framing: .singleLine)
            var body = HTTPListBody(encoder, query: HTTPListQuery(limit: 10, offset: 10))
            var bytes: [UInt8] = []
            while !body.isFinished { bytes += body.nextChunk(targetBytes: size) }
            let page = try JSONDecoder().decode(Page.self, from: Data(bytes))
            #expect(page.books.map(\.id) == (10..<20).map { "b\($0)" })
            #expect(page.next == "20")
            #expect(page.epoch == "E" && page.seq == 9 && page.total == 25)
        }
        let last = BookStreamEncoder(
            .listReply(id: "h1"), epoch: "E", seq: 9, cursor: try Self.cursor(offset: 20, limit: 10),
            framing: .singleLine)
        var body = HTTPListBody(last, query: HTTPListQuery(limit: 10, offset: 20))
        var bytes: [UInt8] = []
        while !body.isFinished { bytes += body.nextChunk(targetBytes: 64) }
        #expect(try JSONDecoder().decode(Page.self, from: Data(bytes)).next == nil)
    }

    struct Page: Decodable {
        var epoch: String
        var seq: UInt64
        var books: [Book]
        var total: Int
        var next: String?
    }
}

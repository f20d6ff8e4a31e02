import BooksCore
import Testing

@testable import BooksProtocol

/// Streamed lists and snapshots: the same bytes as one message, or pages that add up to it.
@Suite struct BookStreamEncoderTests {
    /// 300 books with escaped fields, two comments and a bad line.
    static let context: BookLedger = {
        var text = "# header\n"
        for i in 0..<300 {
            text += "id-\(i)|Name \\| \(i) é\\n|Author \(i % 7)\n"
            if i == 150 { text += "not a row\n# comment\n" }
        }
        return BookLedger(document: BookDocument(parsing: Array(text.utf8)))
    }()

    static let queries: [BookQuery] = [
        BookQuery(),
        BookQuery(filter: BookFilter([BookCondition(.author, .equals, "Author 3")])),
        BookQuery(offset: 290),
        BookQuery(limit: 5, offset: 7),
        BookQuery(filter: BookFilter([BookCondition(.author, .prefix, "Author 1")]), limit: 0),
        BookQuery(sort: BookSort(.name, ascending: false), limit: 50, offset: 3),
        BookQuery(filter: BookFilter([BookCondition(.name, .equals, "none")])),
    ]

    private func encoder(_ query: BookQuery, _ framing: BookStreamEncoder.Framing) -> BookStreamEncoder {
        BookStreamEncoder(
            .listReply(id: "r\"1"), epoch: "E", seq: 4, cursor: try! BookCursor(context: Self.context, query: query),
            framing: framing)
    }

    @Test(arguments: [1, 300, 5000, 1 << 20])
    func singleLineIsExactlyTheWholeReply(targetBytes: Int) {
        for query in Self.queries {
            let expected = try! Self.context.query(query)
            var stream = encoder(query, .singleLine)
            var chunks: [[UInt8]] = []
            while !stream.isFinished {
                chunks.append(stream.nextChunk(targetBytes: targetBytes))
                #expect(stream.isMidLine == !stream.isFinished)
            }
            let whole = MessageEncoder.encode(
                Reply.success(
                    "r\"1", ReplyResult(epoch: "E", seq: 4, books: expected.books, total: expected.total)))
            #expect(Array(chunks.joined()) == whole)
            if targetBytes == 1 { #expect(chunks.count >= expected.books.count) }
        }
    }

    @Test func snapshotSingleLineMatchesTheEncoder() {
        let filter = BookFilter([BookCondition(.author, .equals, "Author 2")])
        var stream = BookStreamEncoder(
            .snapshot, epoch: "E", seq: 9, cursor: try! BookCursor(context: Self.context, filter: filter),
            framing: .singleLine)
        let books = Self.context.books.filter(filter.matches)
        #expect(
            stream.encodeRest(targetBytes: 100)
                == MessageEncoder.encode(Event(event: .snapshot, epoch: "E", seq: 9, books: books)))
    }

    @Test(arguments: [1, 700, 1 << 20])
    func pagesAreLinesThatAddUp(targetBytes: Int) throws {
        let decoder = MessageDecoder()
        for query in Self.queries {
            let expected = try! Self.context.query(query)
            var stream = encoder(query, .pages)
            var books: [Book] = []
            var results: [ReplyResult] = []
            while !stream.isFinished {
                let line = stream.nextChunk(targetBytes: targetBytes)
                #expect(line.last == UInt8(ascii: "\n"))
                #expect(!line.dropLast().contains(UInt8(ascii: "\n")))
                guard case .reply(let reply) = try decoder.decode(line), let result = reply.result else {
                    Issue.record("not a reply")
                    return
                }
                #expect(reply.id == "r\"1" && reply.ok)
                results.append(result)
                books += result.books ?? []
            }
            #expect(books == expected.books)
            #expect(results.dropLast().allSatisfy { $0.more == true && $0.total == nil })
            #expect(results.last?.more == nil && results.last?.total == expected.total)
            if targetBytes == 1 { #expect(results.count >= expected.books.count) }
        }
    }

    @Test func cursorKeepsItsStateWhenTheContextChanges() {
        var context = Self.context
        var stream = BookStreamEncoder(
            .snapshot, epoch: "E", seq: 0, cursor: try! BookCursor(context: context, filter: .all), framing: .pages)
        let first = stream.nextChunk(targetBytes: 1)
        context.apply(bytes: Array("only|one|book\n".utf8), source: .file)
        var all = first
        all += stream.encodeRest(targetBytes: 1 << 20)
        let text = String(decoding: all, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.contains("id-299") && !text.contains("\"only\""))
    }
}

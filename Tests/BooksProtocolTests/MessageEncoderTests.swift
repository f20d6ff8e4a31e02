import BooksCore
import FoundationEssentials
import Testing

@testable import BooksProtocol

@Suite struct MessageEncoderTests {
    static let nasty: [String] = [
        "plain", "", "quote \" and backslash \\ and slash /", "\\\"\\\\",
        "controls \u{0}\u{1}\u{7}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}\u{1F}\u{7F}",
        "emoji 👩‍👩‍👧‍👦 🇩🇪 📚", "combining e\u{301} a\u{308}\u{332}",
        "RTL עברית العربية \u{202E}abc\u{202C}",
        "separators \u{2028}\u{2029}", "pipe | and tab\t and newline\n", "BOM \u{FEFF}",
        "非常に長い本のタイトル",
    ]

    static func book(_ i: Int) -> Book {
        Book(
            id: "id-\(i)-\(nasty[i % nasty.count])", name: nasty[(i + 3) % nasty.count],
            author: nasty[(i + 7) % nasty.count])
    }

    private func roundTrip<T: Codable & Equatable>(_ value: T, _ bytes: [UInt8]) throws {
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.dropLast().contains(UInt8(ascii: "\n")) == false)
        let decoded = try JSONDecoder().decode(T.self, from: Data(bytes))
        #expect(decoded == value)
    }

    @Test func eventsRoundTrip() throws {
        let books = (0..<40).map(Self.book)
        let events: [Event] = [
            Event(event: .snapshot, epoch: "e\"1", seq: 0, books: books),
            Event(event: .snapshot, epoch: "e", seq: 5, books: []),
            Event(
                event: .change, epoch: "e", seq: UInt64.max, source: .file, time: "2026-01-01T00:00:00.000Z",
                inserted: [books[0]],
                updated: [BookUpdate(old: books[1], new: Book(id: books[1].id, name: "x", author: "y"))],
                deleted: [books[2]]),
            Event(
                event: .change, epoch: "e", seq: 7, source: .client, time: "t", inserted: [], updated: [], deleted: []),
            Event(event: .resyncRequired, epoch: "e", seq: 1, reason: "lagged"),
            Event(event: .heartbeat, epoch: "e", seq: 99),
            Event(event: .shutdown, epoch: "e", seq: 3, reason: Self.nasty[4]),
        ]
        for event in events { try roundTrip(event, MessageEncoder.encode(event)) }
    }

    @Test func stringsRoundTripIndividually() throws {
        for s in Self.nasty {
            let event = Event(event: .shutdown, epoch: s, seq: 1, reason: s)
            try roundTrip(event, MessageEncoder.encode(event))
        }
    }

    @Test func escapingIsExact() {
        let bytes = MessageEncoder.encode(Event(event: .heartbeat, epoch: "a\"b\\c\n\t\u{1}é😀/", seq: 12))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == #"{"event":"heartbeat","epoch":"a\"b\\c\n\t\u0001é😀/","seq":12}"# + "\n")
    }

    @Test func repliesRoundTrip() throws {
        let status = DaemonStatus(
            file: "/srv/books.txt", format: "text", fileState: "present", fileProblem: nil,
            bookCount: 3, badLines: [BadLine(lineNumber: 4, reason: .wrongFieldCount(2), text: "a|b")],
            heldBooks: ["x"], watcherMode: "inotify", watcherWarning: nil, epoch: "E", seq: 9,
            oldestReplayableSeq: 1, subscribers: 2, clients: 5, uptimeSeconds: 12.5,
            lastChange: nil, server: "booksd 1.0")
        let replies: [Reply] = [
            .success("1", ReplyResult(protocolVersion: 1, server: "booksd 1.0", epoch: "E", seq: 0)),
            .success("2", ReplyResult(epoch: "E", seq: 3, books: (0..<12).map(Self.book), total: 40)),
            .success("3", ReplyResult(books: [Self.book(1)], versions: [1, 0, UInt64.max])),
            .success("4", ReplyResult(status: status)),
            .success("5", ReplyResult()),
            .failure(nil, ProtocolError(.badRequest, "not \"JSON\"\n")),
            .failure("7", ProtocolError(.conflict, "changed", current: Self.book(3), currentVersion: 8)),
            .failure(Self.nasty[5], ProtocolError(.unknownOp, Self.nasty[6])),
        ]
        for reply in replies { try roundTrip(reply, MessageEncoder.encode(reply)) }
    }

    @Test func changeEventIsFilteredAndTimed() throws {
        let dune = Book(id: "1", name: "Dune", author: "Herbert")
        let other = Book(id: "2", name: "Emma", author: "Austen")
        let change = SequencedChangeSet(
            epoch: "E", seq: 4, source: .file,
            time: Date(timeIntervalSince1970: 1_700_000_000.123_9),
            changes: ChangeSet(inserted: [dune, other]))
        let all = try #require(MessageEncoder.changeEvent(change))
        #expect(all.inserted == [dune, other])
        #expect(all.updated == [] && all.deleted == [])
        #expect(all.time == "2023-11-14T22:13:20.123Z")
        let filter = BookFilter([BookCondition(.author, .equals, "Austen")])
        #expect(MessageEncoder.changeEvent(change, filter: filter)?.inserted == [other])
        let none = BookFilter([BookCondition(.name, .equals, "Nope")])
        #expect(MessageEncoder.changeEvent(change, filter: none) == nil)
    }

    @Test func iso8601() {
        #expect(ISO8601.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 4_102_444_799.999)) == "2099-12-31T23:59:59.999Z")
    }

    @Test func largeSnapshotEncodes() throws {
        let books = (0..<100_000).map { Book(id: "id\($0)", name: "Name \($0)", author: "Author") }
        let bytes = MessageEncoder.encode(Event(event: .snapshot, epoch: "E", seq: 1, books: books))
        let decoded = try JSONDecoder().decode(Event.self, from: Data(bytes))
        #expect(decoded.books?.count == 100_000)
        #expect(decoded.books?.last == books.last)
    }
}

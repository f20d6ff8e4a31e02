import BooksCore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// Protocol version 2 (named stores): requests, events, replies and errors round-trip through
/// both decoders; version-1 lines are unchanged; negotiation.
@Suite struct StoresProtocolTests {
    let decoder = MessageDecoder()

    private func fast(_ line: [UInt8]) -> DaemonMessage? {
        line.withUnsafeBufferPointer(FastMessageDecoder.decode)
    }

    private static let infos = [
        StoreInfo(
            name: "fiction", path: "/srv/books/fiction.txt", format: "text", state: "present", bookCount: 12,
            badLines: 1, epoch: "E1", seq: 40),
        StoreInfo(
            name: "to-read", path: "/srv/books/to-read.json", format: "json", state: "unavailable",
            problem: "not a book list: \"x\"", bookCount: 0, badLines: 0, epoch: "E2", seq: 0),
    ]

    @Test func negotiatesTheHighestCommonVersion() {
        #expect(ProtocolVersion.negotiate(1) == 1)
        #expect(ProtocolVersion.negotiate(2) == 2)
        #expect(ProtocolVersion.negotiate(7) == ProtocolVersion.current)
        #expect(ProtocolVersion.negotiate(0) == nil)
        #expect(ProtocolVersion.negotiate(-3) == nil)
    }

    @Test func storeFieldsOfRequestsRoundTrip() throws {
        let requests = [
            Request(id: "1", op: .list, store: "fiction"),
            Request(id: "2", op: .stores),
            Request(
                id: "3", op: .subscribe, stores: ["a", "b"],
                resumes: ["a": ResumePoint(epoch: "E", seq: 4), "b": ResumePoint(epoch: "F", seq: 0)]),
            Request(id: "4", op: .subscribe, snapshot: false, stores: ["*"]),
            Request(id: "5", op: .insert, books: [BookDraft(name: "n", author: "a")], store: "x/\"y\""),
        ]
        for request in requests {
            var line = try RequestEncoder.encode(request)
            line.removeLast()
            #expect(try RequestDecoder().decode(line) == request)
        }
        let text = #"{"id":"9","op":"subscribe","stores":["*"],"resumes":{"a":{"epoch":"E","seq":3}}}"#
        let decoded = try RequestDecoder().decode(Array(text.utf8))
        #expect(decoded.stores == ["*"] && decoded.resumes?["a"] == ResumePoint(epoch: "E", seq: 3))
        #expect(decoded.isPerStore && !Request(id: "s", op: .stores).isPerStore)
        #expect(!Request(id: "h", op: .hello, version: 2).isPerStore)
    }

    @Test func illTypedStoreFieldsAreBadRequests() {
        for text in [
            #"{"id":"1","op":"list","store":7}"#, #"{"id":"1","op":"subscribe","stores":"a"}"#,
            #"{"id":"1","op":"subscribe","resumes":{"a":{"epoch":"E"}}}"#,
        ] {
            #expect(throws: RequestDecodingError.self) { try RequestDecoder().decode(Array(text.utf8)) }
        }
    }

    /// Every version-2 message: the fast path decodes it, and agrees with `JSONDecoder`.
    @Test func storeMessagesDecodeIdenticallyOnBothPaths() throws {
        let book = Book(id: "b1", name: "Dune", author: "Herbert")
        let events = [
            Event(event: .change, epoch: "E", seq: 3, source: .client, time: "t", inserted: [book], store: "fiction"),
            Event(event: .snapshot, epoch: "E", seq: 3, books: [book], more: true, store: "a"),
            Event(event: .heartbeat, epoch: "E", seq: 3, store: "é \"q\" 😀"),
            Event(event: .subscribed, epoch: "E", seq: 0, store: "a"),
            Event(event: .subscribeFailed, epoch: "E", seq: 9, reason: "query-too-expensive: slow", store: "a"),
            Event(event: .storeAdded, epoch: "N", seq: 0, store: "new"),
            Event(event: .storeRemoved, epoch: "E", seq: 12, reason: "deleted", store: "old"),
            Event(event: .shutdown, epoch: "E", seq: 12, reason: "stopping", store: "old"),
        ]
        let replies = [
            Reply.success("1", ReplyResult(stores: Self.infos)),
            Reply.success("2", ReplyResult(stores: [])),
            Reply.success("3", ReplyResult(subscribedStores: ["a", "b"])),
            Reply.failure("4", ProtocolError(.unknownStore, "no store \"x\"", stores: ["a", "b"])),
            Reply.failure("5", ProtocolError(.storeRequired, "name one", stores: [])),
            Reply.success("6", ReplyResult(protocolVersion: 2, server: "booksd", epoch: "E", seq: 1)),
        ]
        let lines = events.map(MessageEncoder.encode) + replies.map(MessageEncoder.encode)
        let expected = events.map(DaemonMessage.event) + replies.map(DaemonMessage.reply)
        for (line, message) in zip(lines, expected) {
            let text = String(decoding: line, as: UTF8.self)
            #expect(fast(line) == message, "\(text)")
            #expect(try decoder.decodeWithFoundation(line) == message, "\(text)")
        }
    }

    /// The oldest change set kept (`historyOldestSeq`, `historyOldestTime`) goes through every
    /// codec of `StoreInfo` alike: `JSONWriter` (the daemon's replies), `Codable` (HTTP's
    /// `/v1/stores`, clients) and `FastMessageDecoder`; a row without them (an older daemon, or
    /// no history kept) still decodes, with both nil.
    @Test func theOldestChangeSetKeptGoesThroughEveryCodec() throws {
        var kept = Self.infos
        kept[0].historyOldestSeq = 31
        kept[0].historyOldestTime = "2026-12-02T08:30:55.123Z"
        let reply = Reply.success("1", ReplyResult(stores: kept))
        let written = MessageEncoder.encode(reply)
        let text = String(decoding: written, as: UTF8.self)
        let fields = #""seq":40,"historyOldestSeq":31,"historyOldestTime":"2026-12-02T08:30:55.123Z"}"#
        #expect(text.contains(fields), "\(text)")
        #expect(fast(written) == .reply(reply), "\(text)")
        #expect(try decoder.decodeWithFoundation(written) == .reply(reply), "\(text)")
        // Codable's shape, read back by both decoders.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try kept.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(rows[0].contains(#""historyOldestSeq":31"#) && !rows[1].contains("historyOldest"), "\(rows)")
        let codable = Array(#"{"id":"1","ok":true,"result":{"stores":[\#(rows.joined(separator: ","))]}}"#.utf8)
        #expect(fast(codable) == .reply(reply), "\(rows)")
        #expect(try decoder.decodeWithFoundation(codable) == .reply(reply), "\(rows)")
        #expect(try JSONDecoder().decode(StoreInfo.self, from: Data(rows[0].utf8)) == kept[0])
        // An older daemon's row: no history fields.
        let old = Array(
            #"{"id":"1","ok":true,"result":{"stores":[{"name":"a","path":"/p","format":"text","state":"present","bookCount":1,"badLines":0,"epoch":"E","seq":3}]}}"#
                .utf8)
        let oldRow = StoreInfo(
            name: "a", path: "/p", format: "text", state: "present", bookCount: 1, badLines: 0, epoch: "E", seq: 3)
        #expect(fast(old) == .reply(.success("1", ReplyResult(stores: [oldRow]))))
        #expect(try decoder.decodeWithFoundation(old) == .reply(.success("1", ReplyResult(stores: [oldRow]))))
        // A wrong type is refused, not taken as absent.
        let bad = Array(text.replacing(":31,", with: ":\"31\",").utf8)
        #expect(fast(bad) == nil)
    }

    @Test func versionOneLinesCarryNoStore() {
        let event = Event(event: .heartbeat, epoch: "E", seq: 1)
        #expect(
            String(decoding: MessageEncoder.encode(event), as: UTF8.self)
                == #"{"event":"heartbeat","epoch":"E","seq":1}"# + "\n")
        let tagged = Event(event: .heartbeat, epoch: "E", seq: 1, store: "a")
        #expect(
            String(decoding: MessageEncoder.encode(tagged), as: UTF8.self)
                == #"{"event":"heartbeat","store":"a","epoch":"E","seq":1}"# + "\n")
        // A version-1 client's decoder ignores `store`; a version-2 decoder reads it.
        #expect(fast(MessageEncoder.encode(tagged)) == .event(tagged))
    }

    @Test func streamedSnapshotsNameTheirStore() throws {
        let context = BookLedger(document: BookDocument(parsing: Array("b1|Dune|Herbert\n".utf8)), epoch: "E")
        var stream = BookStreamEncoder(
            .snapshot, epoch: "E", seq: 0, cursor: try BookCursor(context: context, filter: .all), framing: .singleLine)
        stream.store = "fiction"
        let line = stream.encodeRest()
        let book = Book(id: "b1", name: "Dune", author: "Herbert")
        #expect(fast(line) == .event(Event(event: .snapshot, epoch: "E", seq: 0, books: [book], store: "fiction")))
    }

    @Test func malformedStoreFieldsAreLeftToFoundation() {
        let lines = [
            #"{"event":"heartbeat","store":7,"epoch":"e","seq":1}"#,
            #"{"event":"heartbeat","store":"a","store":"b","epoch":"e","seq":1}"#,
            #"{"ok":true,"result":{"stores":[{"name":"a"}]}}"#,
            #"{"ok":true,"result":{"stores":[{"name":"a","path":"p","format":"text","state":"present","bookCount":1.5,"badLines":0,"epoch":"E","seq":1}]}}"#,
            #"{"ok":true,"result":{"subscribedStores":[1]}}"#,
            #"{"ok":false,"error":{"code":"unknown-store","message":"m","stores":"a"}}"#,
        ]
        for text in lines {
            let line = Array(text.utf8)
            #expect(fast(line) == nil, "\(text)")
        }
        let unusual =
            #"{"ok":true,"result":{"stores":[{"name":"a","path":"p","format":"text","state":"present","problem":null,"bookCount":1,"badLines":0,"epoch":"E","seq":1,"x":[]}]}}"#
        #expect(fast(Array(unusual.utf8)) != nil)
        #expect(fast(Array(unusual.utf8)) == (try? decoder.decodeWithFoundation(Array(unusual.utf8))))
    }
}

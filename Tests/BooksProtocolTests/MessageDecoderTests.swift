import BooksCore
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// `MessageEncoder` → `MessageDecoder` gives back the same reply or event, for every kind.
@Suite struct MessageDecoderTests {
    let decoder = MessageDecoder()

    static let nasty = MessageEncoderTests.nasty
    static func book(_ i: Int) -> Book { MessageEncoderTests.book(i) }

    /// One event per kind; the switch stops compiling when a kind is added.
    static func sample(_ kind: Event.Kind, text: String = "x") -> Event {
        switch kind {
        case .snapshot: return Event(event: kind, epoch: text, seq: 3, books: (0..<30).map(book))
        case .change:
            return Event(
                event: kind, epoch: text, seq: 4, source: .client, time: "2026-12-01T05:30:00.000Z",
                inserted: [book(1)],
                updated: [BookUpdate(old: book(2), new: Book(id: book(2).id, name: text, author: text))],
                deleted: [book(3)])
        case .resyncRequired: return Event(event: kind, epoch: text, seq: 5, reason: text)
        case .heartbeat: return Event(event: kind, epoch: text, seq: 6)
        case .shutdown: return Event(event: kind, epoch: text, seq: 7, reason: text)
        case .subscribed: return Event(event: kind, epoch: text, seq: 8, store: text)
        case .subscribeFailed: return Event(event: kind, epoch: text, seq: 9, reason: text, store: text)
        case .storeAdded: return Event(event: kind, epoch: text, seq: 0, store: text)
        case .storeRemoved: return Event(event: kind, epoch: text, seq: 10, reason: text, store: text)
        case .conflict:
            var event = Event(event: kind, epoch: text, seq: 11, store: text)
            event.conflict = RecordedConflict(
                id: 1,
                conflict: MergeConflict(
                    id: text, kind: .name, base: book(1), mine: Book(id: text, name: text, author: text),
                    theirs: book(2)),
                seq: 11, baseSeq: 9, time: Date(timeIntervalSinceReferenceDate: 786_240_000.5), who: text)
            event.resolved = .theirs
            return event
        }
    }
    static let kinds: [Event.Kind] = [
        .snapshot, .change, .resyncRequired, .heartbeat, .shutdown, .subscribed, .subscribeFailed, .storeAdded,
        .storeRemoved, .conflict,
    ]

    static let status = DaemonStatus(
        file: "/srv/bööks/books.txt", format: "text", fileState: "unavailable", fileProblem: "not a regular file",
        bookCount: Int.max,
        badLines: [
            BadLine(lineNumber: 4, reason: .wrongFieldCount(2), text: "a|b"),
            BadLine(lineNumber: 9, reason: .duplicateID("x", firstLine: 2), text: nasty[4]),
            BadLine(lineNumber: 10, reason: .tooLong(limit: 1 << 20), text: ""),
        ],
        heldBooks: ["x", nasty[5]], watcherMode: "polling", watcherWarning: "nfs", epoch: "E", seq: UInt64.max,
        oldestReplayableSeq: 1, subscribers: 0, clients: 5, uptimeSeconds: 0.1, lastChange: "2026-12-01T05:30:00.000Z",
        server: "booksd 1.0")

    /// One successful reply per result shape, and one failure per error code.
    static func replies(text: String = "x") -> [Reply] {
        var replies: [Reply] = [
            .success(text, ReplyResult(protocolVersion: 1, server: text, epoch: text, seq: 0)),  // hello
            .success("2", ReplyResult(epoch: "E", seq: 3)),  // ping, subscribe
            .success("3", ReplyResult(status: status)),
            .success("4", ReplyResult(epoch: "E", seq: 3, books: (0..<12).map(book), total: 40)),  // list
            .success("5", ReplyResult(books: [book(1), book(2)], versions: [1, UInt64.max])),  // get
            // writes
            .success("6", ReplyResult(epoch: "E", seq: 8, books: [Book(id: text, name: text, author: text)])),
            .success("7", ReplyResult()),  // unsubscribe
            .success("8", ReplyResult(books: [], versions: [], total: 0)),
            .failure(nil, ProtocolError(.badRequest, "not \"JSON\"\n")),
            .failure("c1", ProtocolError(.conflict, text, current: book(3), currentVersion: 8)),
            .failure("c2", ProtocolError(.conflict, "deleted meanwhile", currentVersion: 0)),
        ]
        for code in ProtocolError.ErrorCode.allCases {
            replies.append(.failure(code.rawValue, ProtocolError(code, text)))
        }
        return replies
    }

    @Test func everyEventKindRoundTrips() throws {
        for kind in Self.kinds {
            let event = Self.sample(kind)
            #expect(try decoder.decode(MessageEncoder.encode(event)) == .event(event), "\(kind)")
        }
    }

    @Test func everyReplyRoundTrips() throws {
        for reply in Self.replies() {
            #expect(try decoder.decode(MessageEncoder.encode(reply)) == .reply(reply))
        }
    }

    @Test func unicodeAndEscapesRoundTripByteForByte() throws {
        for text in Self.nasty {
            for kind in Self.kinds {
                let event = Self.sample(kind, text: text)
                guard case .event(let decoded) = try decoder.decode(MessageEncoder.encode(event)) else {
                    Issue.record("not an event")
                    continue
                }
                #expect(decoded == event)
                #expect(Array(decoded.epoch.utf8) == Array(text.utf8))
            }
            for reply in Self.replies(text: text) {
                #expect(try decoder.decode(MessageEncoder.encode(reply)) == .reply(reply))
            }
        }
    }

    @Test func bigIntegersAndAbsentOptionalsRoundTrip() throws {
        let events = [
            Event(event: .heartbeat, epoch: "", seq: UInt64.max),
            Event(event: .change, epoch: "e", seq: 1 << 53 + 1, inserted: [], updated: [], deleted: []),
            Event(event: .change, epoch: "e", seq: 2),  // every optional absent
            Event(event: .snapshot, epoch: "e", seq: 0, books: []),
            Event(event: .shutdown, epoch: "e", seq: 0),  // no reason
        ]
        for event in events { #expect(try decoder.decode(MessageEncoder.encode(event)) == .event(event)) }
        let replies = [
            Reply.success("1", ReplyResult(protocolVersion: Int.min, seq: UInt64.max, total: Int.max)),
            Reply.success("2", ReplyResult(protocolVersion: Int.max, versions: [0, UInt64.max, 1 << 63])),
            Reply(id: nil, ok: true, result: nil, error: nil),
            Reply(id: "", ok: false, result: nil, error: nil),
        ]
        for reply in replies { #expect(try decoder.decode(MessageEncoder.encode(reply)) == .reply(reply)) }
    }

    @Test func lineMayOmitItsTerminator() throws {
        let event = Self.sample(.heartbeat)
        let line = MessageEncoder.encode(event)
        #expect(try decoder.decode(Array(line.dropLast())) == .event(event))
        #expect(try decoder.decode(Array(line.dropLast()) + Array("\r\n".utf8)) == .event(event))
    }

    @Test func largeSnapshotRoundTrips() throws {
        let books = (0..<100_000).map {
            Book(id: "id\($0)", name: "Name \($0) \(Self.nasty[$0 % Self.nasty.count])", author: "A")
        }
        let event = Event(event: .snapshot, epoch: "E", seq: 1, books: books)
        #expect(try decoder.decode(MessageEncoder.encode(event)) == .event(event))
    }

    private func failure(_ text: String) -> MessageDecodingError? {
        failure(Array(text.utf8))
    }

    private func failure(_ bytes: [UInt8]) -> MessageDecodingError? {
        do {
            _ = try decoder.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func unreadableLinesGiveTypedErrors() throws {
        #expect(failure([0x7B, 0x22, 0xFF, 0x22, 0x7D])?.kind == .invalidUTF8)
        #expect(failure("not json")?.kind == .invalidJSON)
        #expect(failure("")?.kind == .invalidJSON)
        #expect(failure(#"{"id":"1","ok":true"#)?.kind == .invalidJSON)
        #expect(failure("[1,2]")?.kind == .notAnObject)
        #expect(failure(#""text""#)?.kind == .notAnObject)

        let badKind = try #require(failure(#"{"event":"nope","epoch":"e","seq":1}"#))
        #expect(badKind.kind == .invalidField)
        #expect(badKind.message == "event: Cannot initialize Kind from invalid String value nope")
        let noSeq = try #require(failure(#"{"event":"heartbeat","epoch":"e"}"#))
        #expect(noSeq.message == "seq: missing")
        let noOK = try #require(failure(#"{"id":"1"}"#))
        #expect(noOK.message == "ok: missing")
        let badBook = try #require(
            failure(#"{"id":"1","ok":true,"result":{"books":[{"id":"a","name":null,"author":"b"}]}}"#))
        #expect(badBook.kind == .invalidField)
        #expect(badBook.message == "result.books[0].name: expected String, found null")
        let badCode = try #require(failure(#"{"id":"1","ok":false,"error":{"code":"gone","message":""}}"#))
        #expect(badCode.message == "error.code: Cannot initialize ErrorCode from invalid String value gone")
        let negativeSeq = try #require(failure(#"{"event":"heartbeat","epoch":"e","seq":-1}"#))
        #expect(negativeSeq.message == "event: a number does not fit its field")
        let fraction = try #require(failure(#"{"id":"1","ok":true,"result":{"total":1.5}}"#))
        #expect(fraction.message == "reply: a number does not fit its field")
    }

    @Test func errorQuotesTheStartOfTheLine() throws {
        let long = #"{"event":"heartbeat","epoch":""# + String(repeating: "é", count: 300) + "\"}"
        let error = try #require(failure(long))
        #expect(error.byteCount == long.utf8.count)
        #expect(error.excerpt.utf8.count <= MessageDecoder.excerptLength)
        #expect(error.description.hasPrefix("unreadable line from daemon (seq: missing): {\"event\":\"heartbeat\""))
        #expect(error.description.hasSuffix("… (\(long.utf8.count) bytes)"))
        let short = try #require(failure("nope"))
        #expect(short.description.hasSuffix(": nope"))
    }

    @Test func unknownKeysAreIgnored() throws {
        let line = #"{"event":"heartbeat","epoch":"e","seq":2,"future":[1,{"x":null}]}"#
        #expect(try decoder.decode(Array(line.utf8)) == .event(Event(event: .heartbeat, epoch: "e", seq: 2)))
        let reply = #"{"id":"1","ok":true,"result":{"seq":3,"extra":"y"},"later":1}"#
        #expect(try decoder.decode(Array(reply.utf8)) == .reply(.success("1", ReplyResult(seq: 3))))
    }
}

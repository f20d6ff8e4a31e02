import BooksCore
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// The `conflicts` and `resolve` ops: requests and replies survive the codecs, and both reply
/// decoders agree.
@Suite struct ConflictsProtocolTests {
    static let recorded = [
        RecordedConflict(
            id: 3,
            conflict: MergeConflict(
                id: "b2", kind: .name, base: Book(id: "b2", name: "Old", author: "A"),
                mine: Book(id: "b2", name: "Vim \"Title\"\n", author: "A"),
                theirs: Book(id: "b2", name: "Client", author: "A")),
            seq: 9, baseSeq: 7, time: Date(timeIntervalSince1970: 1_764_633_600.25), who: "ann@host pid 42"),
        RecordedConflict(
            id: 4,
            conflict: MergeConflict(
                id: "b5", kind: .deletedByMine, base: Book(id: "b5", name: "N", author: "A"), mine: nil,
                theirs: Book(id: "b5", name: "N2", author: "A")),
            seq: 9, baseSeq: 7, time: Date(timeIntervalSince1970: 1_764_633_600), who: ""),
    ]

    @Test func resolveRequestRoundTrips() throws {
        let request = Request(id: "r1", op: .resolve, store: "fiction", conflict: 3, take: .theirs)
        let line = try RequestEncoder.encode(request)
        #expect(try RequestDecoder().decode(Array(line.dropLast())) == request)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""conflict":3"#) && text.contains(#""take":"theirs""#), "\(text)")
    }

    @Test func resolveRequestAsAClientWritesIt() throws {
        let line = Array(#"{"id":1,"op":"resolve","conflict":2,"take":"mine"}"#.utf8)
        let request = try RequestDecoder().decode(line)
        #expect(request.op == .resolve && request.conflict == 2 && request.take == .mine && request.id == "1")
        #expect(request.isPerStore)
        #expect(Request(id: "c", op: .conflicts).isPerStore)
    }

    @Test func resolveWithAnUnknownSideIsABadRequest() {
        let line = Array(#"{"id":"1","op":"resolve","conflict":2,"take":"both"}"#.utf8)
        #expect {
            try RequestDecoder().decode(line)
        } throws: { error in
            (error as? RequestDecodingError)?.error.code == .badRequest
        }
    }

    @Test(arguments: [[], recorded])
    func conflictsReplyDecodesTheSameOnBothPaths(_ conflicts: [RecordedConflict]) throws {
        let reply = Reply.success("c1", ReplyResult(epoch: "E", seq: 9, conflicts: conflicts))
        let line = MessageEncoder.encode(reply)
        let decoder = MessageDecoder()
        #expect(try decoder.decode(line) == .reply(reply))
        #expect(try decoder.decodeWithFoundation(line) == .reply(reply))
        // The fast path leaves conflicts to JSONDecoder rather than decode them differently.
        #expect(line.withUnsafeBufferPointer(FastMessageDecoder.decode) == nil)
    }

    @Test(arguments: [nil, ConflictSide.mine])
    func aConflictEventDecodesTheSameOnBothPaths(_ resolved: ConflictSide?) throws {
        var event = Event(event: .conflict, epoch: "E", seq: 9, store: "fiction")
        event.conflict = Self.recorded[0]
        event.resolved = resolved
        let line = MessageEncoder.encode(event)
        let decoder = MessageDecoder()
        #expect(try decoder.decode(line) == .event(event))
        #expect(try decoder.decodeWithFoundation(line) == .event(event))
        #expect(line.withUnsafeBufferPointer(FastMessageDecoder.decode) == nil, "left to JSONDecoder")
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix(#"{"event":"conflict","store":"fiction","epoch":"E","seq":9,"conflict":{"#), "\(text)")
        #expect(text.contains(#""resolved":"mine""#) == (resolved == .mine), "\(text)")
    }

    @Test func aSubscribeAsksForConflictsOnlyWhenItSaysSo() throws {
        let asking = try RequestDecoder().decode(Array(#"{"id":"1","op":"subscribe","conflicts":true}"#.utf8))
        #expect(asking.conflicts == true)
        #expect(try RequestDecoder().decode(Array(#"{"id":"1","op":"subscribe"}"#.utf8)).conflicts == nil)
        var request = Request(id: "2", op: .subscribe)
        request.conflicts = true
        #expect(try RequestDecoder().decode(Array(RequestEncoder.encode(request).dropLast())) == request)
    }

    @Test func aNullConflictsMemberIsAbsentOnBothPaths() throws {
        let line = Array(#"{"id":"1","ok":true,"result":{"seq":2,"conflicts":null}}"#.utf8)
        let expected = DaemonMessage.reply(.success("1", ReplyResult(seq: 2)))
        #expect(line.withUnsafeBufferPointer(FastMessageDecoder.decode) == expected)
        #expect(try MessageDecoder().decodeWithFoundation(line) == expected)
    }
}

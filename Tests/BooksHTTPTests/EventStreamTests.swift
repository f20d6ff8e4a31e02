import BooksCore
import BooksProtocol
import Testing

@testable import BooksHTTP

/// The SSE stream of one client: framing, order, resume position, and the cut-off of a client
/// that does not read.
@Suite struct EventStreamTests {
    static func change(_ seq: UInt64, name: String = "Dune") -> Event {
        Event(event: .change, epoch: "E", seq: seq, inserted: [Book(id: "b\(seq)", name: name, author: "A")])
    }

    static func drain(_ stream: inout EventStream, chunk: Int = 1 << 20) -> String {
        var text = ""
        while case .bytes(let bytes) = stream.read(maxBytes: chunk) { text += String(decoding: bytes, as: UTF8.self) }
        return text
    }

    @Test func eventsAreFramedWithTheirPositionInOrderOnce() {
        var stream = EventStream(limitBytes: 1 << 20, afterSeq: 2)
        #expect(Self.drain(&stream).hasPrefix("retry: 2000\n"))
        #expect(stream.read(maxBytes: 100) == .wait)
        let offered1 = stream.offer(Self.change(2))  // at the resume point: already seen
        #expect(!offered1)
        let offered2 = stream.offer(Self.change(3))
        #expect(offered2)
        let offered3 = stream.offer(Self.change(3))  // twice (a replay overlapping a broadcast)
        #expect(!offered3)
        let offered4 = stream.offer(Event(event: .heartbeat, epoch: "E", seq: 3))
        #expect(offered4)
        let offered5 = stream.offer(Self.change(4, name: "<script>"))
        #expect(offered5)
        let offered6 = stream.offer(Event(event: .subscribed, epoch: "E", seq: 4))
        #expect(!offered6)
        let text = Self.drain(&stream, chunk: 7)  // small reads split frames; order stays
        let frames = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(frames.count == 3)
        #expect(frames[0].hasPrefix("id: E:3\nevent: change\ndata: {\"event\":\"change\""))
        #expect(frames[1] == ": heartbeat E:3")
        #expect(frames[2].hasPrefix("id: E:4\nevent: change\ndata: "))
        #expect(!frames[2].dropFirst(30).contains("\n"))  // one data line
        #expect(stream.afterSeq == 4)
    }

    @Test func aResyncIsItsOwnEvent() {
        var stream = EventStream(limitBytes: 1 << 20, afterSeq: 0)
        _ = Self.drain(&stream)
        stream.offer(Event(event: .resyncRequired, epoch: "F", seq: 10, reason: "epoch changed"))
        #expect(Self.drain(&stream).hasPrefix("id: F:10\nevent: resync\ndata: "))
        let offered7 = stream.offer(Self.change(10))
        #expect(!offered7)
    }

    @Test func aClientThatDoesNotReadIsCutOffWithBoundedMemory() {
        var stream = EventStream(limitBytes: 4096, afterSeq: 0)
        var seq: UInt64 = 0
        while stream.offer(Self.change(seq + 1)) { seq += 1 }
        #expect(seq > 5)
        #expect(stream.isCutOff)
        #expect(stream.pendingBytes == 0)
        let offered8 = stream.offer(Self.change(seq + 5))
        #expect(!offered8)
        #expect(stream.read(maxBytes: 100) == .cutOff)
    }

    @Test func eventIDsRoundTrip() {
        #expect(EventID.parse(EventID.format(epoch: "5A09-ab:c", seq: 42)) == ResumePoint(epoch: "5A09-ab:c", seq: 42))
        #expect(EventID.parse("nocolon") == nil)
        #expect(EventID.parse(":4") == nil)
        #expect(EventID.parse("E:x") == nil)
    }
}

/// The long poll's JSON answer.
@Suite struct LongPollBodyTests {
    @Test func changesAndTheNextPosition() throws {
        let change = Event(event: .change, epoch: "E", seq: 4, inserted: [Book(id: "b", name: "<x>", author: "y")])
        let answer = LongPollBody.response([change, Event(event: .heartbeat, epoch: "E", seq: 4)], epoch: "E", seq: 2)
        #expect(answer.status == 200)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text.hasPrefix("{\"changes\":[{\"event\":\"change\""))
        #expect(text.hasSuffix("],\"last\":\"E:4\"}\n"))
        #expect(!text.contains("heartbeat"))
        let empty = String(decoding: LongPollBody.response([], epoch: "E", seq: 2).body, as: UTF8.self)
        #expect(empty == "{\"changes\":[],\"last\":\"E:2\"}\n")
    }
}

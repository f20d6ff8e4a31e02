import BooksCore
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// `"actor"` on change events: written by `MessageEncoder`, read alike by the fast path and by
/// `JSONDecoder`, and kept by the history's binary change sets (old records without it still read).
@Suite struct ActorCodecTests {
    static let actors: [ChangeActor] = [
        ChangeActor(uid: 1000, user: "alice", pid: 4242, program: "booksctl"), .nats,
        ChangeActor(uid: 0, user: "root", editor: "unknown"),
        ChangeActor(user: "bob \"b\"", pid: -1, host: "laptop", editor: "vim"), ChangeActor(),
    ]

    static func change(_ actor: ChangeActor?, source: ChangeSource = .client) -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: "E", seq: 7, source: source, time: Date(timeIntervalSince1970: 1_796_121_000.25),
            changes: ChangeSet(inserted: [Book(id: "1", name: "Dune", author: "Herbert")]), actor: actor)
    }

    @Test func changeEventsCarryTheActorBothDecodersAgree() throws {
        for actor in Self.actors + [nil] {
            let event = try #require(MessageEncoder.changeEvent(Self.change(actor, source: .nats)))
            #expect(event.actor == actor)
            let line = MessageEncoder.encode(event)
            #expect(String(decoding: line, as: UTF8.self).contains(#""actor":"#) == (actor != nil))
            let fast = line.withUnsafeBufferPointer(FastMessageDecoder.decode)
            let slow = try MessageDecoder().decodeWithFoundation(line)
            #expect(fast == .event(event))
            #expect(slow == .event(event))
        }
        let text = #"{"event":"change","epoch":"E","seq":1,"actor":{"uid":1000,"user":"a","pid":5,"program":"p"}}"#
        #expect(
            Array(text.utf8).withUnsafeBufferPointer(FastMessageDecoder.decode)
                == .event(
                    Event(
                        event: .change, epoch: "E", seq: 1,
                        actor: ChangeActor(uid: 1000, user: "a", pid: 5, program: "p"))
                ))
        let wide = #"{"event":"change","epoch":"E","seq":1,"actor":{"uid":4294967296}}"#
        #expect(Array(wide.utf8).withUnsafeBufferPointer(FastMessageDecoder.decode) == nil)
    }

    @Test func historyKeepsTheActorAndReadsRecordsWithoutOne() throws {
        for actor in Self.actors + [nil] {
            for source in [ChangeSource.file, .client, .nats] {
                var writer = HistoryByteWriter()
                writer.changeSet(Self.change(actor, source: source))
                var reader = HistoryByteReader(writer.bytes, what: "test")
                #expect(try reader.changeSet() == Self.change(actor, source: source))
                #expect(reader.isAtEnd)
            }
        }
        // The layout written before attribution: source byte 0 or 1, no actor.
        var legacy = HistoryByteWriter()
        legacy.string("E")
        legacy.u64(7)
        legacy.u8(1)
        legacy.time(Date(timeIntervalSince1970: 1_796_121_000.25))
        legacy.books([Book(id: "1", name: "Dune", author: "Herbert")])
        legacy.u64(0)
        legacy.books([])
        legacy.u64(0)
        var reader = HistoryByteReader(legacy.bytes, what: "test")
        #expect(try reader.changeSet() == Self.change(nil))
        #expect(reader.isAtEnd)
    }
}

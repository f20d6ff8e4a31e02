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
        ChangeActor(uid: 1000, user: "carol", pid: 88, program: "booksctl", host: "web1", via: "nats", natsUser: "ops"),
        ChangeActor(program: "importer", via: "nats"), ChangeActor(natsUser: "alice.creds"),
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

    @Test func historyReadsActorsWrittenBeforeViaAndNATSUserAndRefusesUnknownBits() throws {
        // An actor as journals have kept it since attribution: mask 0x80 | uid | user | pid | program.
        var old = HistoryByteWriter()
        old.u8(0x8F)
        old.u32(1000)
        old.string("alice")
        old.u32(4242)
        old.string("booksctl")
        var reader = HistoryByteReader(old.bytes, what: "test")
        #expect(try reader.actor() == ChangeActor(uid: 1000, user: "alice", pid: 4242, program: "booksctl"))
        #expect(reader.isAtEnd)
        // Without via or natsUser the bytes are those of before.
        var same = HistoryByteWriter()
        same.actor(ChangeActor(uid: 1000, user: "alice", pid: 4242, program: "booksctl"))
        #expect(same.bytes == old.bytes)
        // A second mask byte with a bit this reader does not know is refused, not misread.
        var unknown = HistoryByteWriter()
        unknown.u8(0xC0)
        unknown.u8(4)
        var strict = HistoryByteReader(unknown.bytes, what: "test")
        #expect(throws: HistoryFormatError.self) { try strict.actor() }
    }

    @Test func theSummaryOfADeclaredNATSActorSaysViaNATS() {
        let actor = ChangeActor(
            uid: 1000, user: "carol", pid: 88, program: "booksctl", host: "web1", via: "nats", natsUser: "ops")
        #expect(actor.summary == "carol booksctl[88]@web1 via nats as ops")
        #expect(ChangeActor.nats.summary == "nats")
        #expect(ChangeActor(via: "nats").summary == "unknown via nats")
        let common = ChangeActor.common([actor, ChangeActor(uid: 1000, user: "carol", pid: 89, via: "nats")])
        #expect(common == ChangeActor(uid: 1000, user: "carol", via: "nats"))
    }
}

import BooksCore
import Testing

@testable import BooksProtocol

/// The `Books-Actor` header of NATS requests: what a client writes is what booksd reads back,
/// marked `via` `nats`; a malformed or oversized value is refused (and so ignored by booksd).
@Suite struct ActorHeaderTests {
    @Test func aDeclaredActorReadsBackMarkedViaNATS() throws {
        let actor = ChangeActor(
            uid: 1000, user: "alice \"a\"", pid: 4242, program: "booksctl", host: "web1", natsUser: "ops")
        let value = ActorHeader.value(declaring: actor)
        #expect(!value.contains("\n") && !value.contains("\r"))
        var expected = actor
        expected.via = "nats"
        #expect(try ActorHeader.actor(from: value) == expected)
        // A client cannot claim another route; an editor (a replica's hand edit) is kept, declared.
        let claimed = #"{"user":"bob","via":"socket","editor":"vim"}"#
        #expect(try ActorHeader.actor(from: claimed) == ChangeActor(user: "bob", editor: "vim", via: "nats"))
        let handEdit = ChangeActor(uid: 1000, user: "bob", host: "laptop", editor: "unknown")
        #expect(try ActorHeader.actor(from: ActorHeader.value(declaring: handEdit)).editor == "unknown")
        #expect(try ActorHeader.actor(from: " {} ") == ChangeActor(via: "nats"))
    }

    @Test func malformedAndOversizedValuesAreRefused() {
        for bad in ["", "alice", "{", #"{"uid":-1}"#, #"{"pid":"12"}"#, #"{"user":"a"} x"#, #"["a"]"#] {
            #expect(throws: ActorHeader.Refusal.malformed, "\(bad)") { try ActorHeader.actor(from: bad) }
        }
        let long = #"{"user":""# + String(repeating: "x", count: ActorHeader.maxBytes) + #""}"#
        #expect(throws: ActorHeader.Refusal.tooLong(long.utf8.count)) { try ActorHeader.actor(from: long) }
    }
}

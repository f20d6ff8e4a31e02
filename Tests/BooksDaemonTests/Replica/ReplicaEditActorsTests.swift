import BooksCore
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// Who made a replica's hand edits, kept per book until the owner takes them.
@Suite struct ReplicaEditActorsTests {
    static let ann = ChangeActor(user: "ann", pid: 7, host: "laptop", editor: "vim")
    static let bob = ChangeActor(uid: 1001, user: "bob", editor: "unknown")

    static func edit(_ source: ChangeSource, _ actor: ChangeActor?, inserted: [String]) -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: "E", seq: 1, source: source, time: Date(),
            changes: ChangeSet(inserted: inserted.map { Book(id: $0, name: "N", author: "A") }), actor: actor)
    }

    @Test func eachBookHasItsHandEditsActorUntilTheOwnerTookIt() {
        var actors = ReplicaEditActors()
        actors.note(Self.edit(.file, Self.ann, inserted: ["1", "2"]))
        actors.note(Self.edit(.file, Self.bob, inserted: ["3"]))
        actors.note(Self.edit(.nats, ChangeActor.nats, inserted: ["4"]))  // the replica's own write
        #expect(actors.actor(of: ["1", "2"]) == Self.ann)
        #expect(actors.actor(of: ["3"]) == Self.bob)
        #expect(actors.actor(of: ["1", "3"]) == ChangeActor.common([Self.ann, Self.bob]))
        #expect(actors.actor(of: ["4"]) == nil, "not a hand edit")
        actors.sent(["1", "2"])
        #expect(actors.actor(of: ["1"]) == nil)
        #expect(actors.actor(of: ["3"]) == Self.bob)
    }

    @Test func beyondItsCapacityTheNewestHandEditStandsForTheRest() {
        var actors = ReplicaEditActors()
        let many = (0..<ReplicaEditActors.capacity).map { "b\($0)" }
        actors.note(Self.edit(.file, Self.bob, inserted: many))
        actors.note(Self.edit(.file, Self.ann, inserted: ["late"]))
        #expect(actors.actor(of: ["late"]) == Self.ann, "not kept one by one, the newest hand edit's")
        #expect(actors.actor(of: ["b1"]) == Self.bob)
    }
}

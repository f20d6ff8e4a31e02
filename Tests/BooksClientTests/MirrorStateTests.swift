import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@Suite struct MirrorStateTests {
    let a = Book(id: "a", name: "Dune", author: "Herbert")
    let b = Book(id: "b", name: "Emma", author: "Austen")
    let c = Book(id: "c", name: "Ulysses", author: "Joyce")

    func snapshot(_ seq: UInt64, _ books: [Book], epoch: String = "E1") -> FeedItem {
        .snapshot(FeedSnapshot(epoch: epoch, seq: seq, books: books))
    }

    func change(
        _ seq: UInt64, inserted: [Book] = [], updated: [BookUpdate] = [], deleted: [Book] = [],
        source: ChangeSource = .file, epoch: String = "E1"
    ) -> FeedItem {
        .change(
            FeedChange(
                epoch: epoch, seq: seq, source: source,
                changes: ChangeSet(inserted: inserted, updated: updated, deleted: deleted)))
    }

    @Test func firstSnapshotSeedsSilentlyUnlessInitial() {
        var quiet = MirrorState()
        #expect(quiet.apply(snapshot(3, [a, b])) == nil)
        #expect(quiet.books == [a, b])
        #expect(quiet.resumePoint == ResumePoint(epoch: "E1", seq: 3))

        var loud = MirrorState(emitInitialSnapshot: true)
        let update = loud.apply(snapshot(3, [a, b]))
        #expect(update?.origin == .snapshot)
        #expect(update?.seq == 3)
        #expect(update?.changes == ChangeSet(inserted: [a, b]))
        var empty = MirrorState(emitInitialSnapshot: true)
        let none = empty.apply(snapshot(5, []))
        #expect(none?.origin == .snapshot, "an empty initial snapshot is still reported")
        #expect(none?.changes.isEmpty == true)
        #expect(quiet.apply(snapshot(4, [a, b])) == nil, "a later identical snapshot reports nothing")
    }

    @Test func liveChangesAndDuplicateReplaysAreSkipped() {
        var mirror = MirrorState()
        _ = mirror.apply(snapshot(3, [a]))
        let u1 = mirror.apply(change(4, inserted: [b], source: .client))
        #expect(
            u1
                == MirrorUpdate(
                    epoch: "E1", seq: 4, source: .client, time: nil, origin: .live, changes: ChangeSet(inserted: [b])))
        // A replay of seq 4 (and anything older) after a reconnect yields nothing.
        #expect(mirror.apply(change(4, inserted: [b])) == nil)
        #expect(mirror.apply(change(2, deleted: [a])) == nil)
        #expect(mirror[a.id] == a)
        let a2 = Book(id: "a", name: "Dune Messiah", author: "Herbert")
        let u2 = mirror.apply(change(5, updated: [BookUpdate(old: a, new: a2)], deleted: [b]))
        #expect(u2?.changes == ChangeSet(updated: [BookUpdate(old: a, new: a2)], deleted: [b]))
        #expect(mirror.books == [a2])
        #expect(mirror.resumePoint == ResumePoint(epoch: "E1", seq: 5))
    }

    @Test func resyncDiffReportsExactlyTheMissedChanges() {
        var mirror = MirrorState()
        _ = mirror.apply(snapshot(10, [a, b]))
        let a2 = Book(id: "a", name: "Dune", author: "Frank Herbert")
        #expect(mirror.apply(.resyncRequired(epoch: "E2", seq: 1, reason: "epoch changed")) == nil)
        #expect(mirror.awaitingSnapshot)
        let update = mirror.apply(snapshot(2, [c, a2], epoch: "E2"))
        #expect(update?.origin == .resync)
        #expect(update?.seq == 2)
        #expect(update?.epoch == "E2")
        #expect(update?.changes == ChangeSet(inserted: [c], updated: [BookUpdate(old: a, new: a2)], deleted: [b]))
        #expect(mirror.resumePoint == ResumePoint(epoch: "E2", seq: 2))
        #expect(!mirror.awaitingSnapshot)
        // The same snapshot again (another reconnect) yields nothing.
        #expect(mirror.apply(snapshot(2, [c, a2], epoch: "E2")) == nil)
        // Changes of the new epoch continue; the old epoch's numbers do not matter.
        #expect(mirror.apply(change(3, deleted: [c], epoch: "E2"))?.changes == ChangeSet(deleted: [c]))
    }

    @Test func normalisesAgainstMirrorAndFilter() {
        let filter = BookFilter([BookCondition(.author, .containsIgnoringCase, "AUSTEN")])
        var mirror = MirrorState(filter: filter)
        _ = mirror.apply(snapshot(1, [a, b]))  // a is outside the filter
        #expect(mirror.books == [b])
        #expect(mirror.apply(change(2, inserted: [b])) == nil)  // re-insert, same values
        #expect(mirror.apply(change(3, deleted: [c])) == nil)  // unknown id
        let bOut = Book(id: "b", name: "Emma", author: "Someone")
        #expect(mirror.apply(change(4, updated: [BookUpdate(old: b, new: bOut)]))?.changes == ChangeSet(deleted: [b]))
        let aIn = Book(id: "a", name: "Dune", author: "Jane Austen")
        #expect(mirror.apply(change(5, updated: [BookUpdate(old: a, new: aIn)]))?.changes == ChangeSet(inserted: [aIn]))
        // A delete carries the last known values even if the daemon sends others.
        let stale = Book(id: "a", name: "?", author: "?")
        #expect(mirror.apply(change(6, deleted: [stale]))?.changes == ChangeSet(deleted: [aIn]))
    }

    @Test func heartbeatAdvancesResumePoint() {
        var mirror = MirrorState()
        _ = mirror.apply(snapshot(1, [a]))
        _ = mirror.apply(.heartbeat(ResumePoint(epoch: "E1", seq: 9)))
        #expect(mirror.resumePoint == ResumePoint(epoch: "E1", seq: 9))
        _ = mirror.apply(.heartbeat(ResumePoint(epoch: "other", seq: 20)))
        #expect(mirror.resumePoint == ResumePoint(epoch: "E1", seq: 9))
        #expect(mirror.apply(change(8, deleted: [a])) == nil)
    }

    @Test func feedItemFromWireEvent() {
        let event = Event(
            event: .change, epoch: "E", seq: 4, source: .client, time: "2026-01-01T00:00:00.000Z",
            inserted: [a], updated: nil, deleted: nil)
        #expect(
            FeedItem(event)
                == .change(
                    FeedChange(
                        epoch: "E", seq: 4, source: .client, time: Date(timeIntervalSince1970: 1_767_225_600),
                        changes: ChangeSet(inserted: [a]))))
        #expect(
            FeedItem(Event(event: .resyncRequired, epoch: "E", seq: 1, reason: "trimmed"))
                == .resyncRequired(epoch: "E", seq: 1, reason: "trimmed"))
    }

    @Test func backoff() {
        let policy = ReconnectBackoff()
        #expect(policy.delay(attempt: 0) == .milliseconds(100))
        #expect(policy.delay(attempt: 1) == .milliseconds(200))
        #expect(policy.delay(attempt: 4) == .milliseconds(1600))
        #expect(policy.delay(attempt: 5) == .seconds(2))
        #expect(policy.delay(attempt: 50) == .seconds(2))
    }
}

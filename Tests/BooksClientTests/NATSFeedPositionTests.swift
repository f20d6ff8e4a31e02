import BooksCore
import BooksProtocol
import Testing

@testable import BooksClient

/// The NATS stream read by booksd position: replays skipped, gaps reported once, the first
/// snapshot marker no gap, what the bucket already showed left out.
struct NATSFeedPositionTests {
    static func change(_ epoch: String, _ seq: UInt64, inserted: [Book] = [], deleted: [Book] = []) -> Event {
        var event = Event(event: .change, epoch: epoch, seq: seq)
        event.inserted = inserted
        event.deleted = deleted
        return event
    }

    static func marker(_ epoch: String, _ seq: UInt64) -> Event { Event(event: .snapshot, epoch: epoch, seq: seq) }

    static func seqs(_ items: [FeedItem]) -> [String] {
        items.map { item in
            switch item {
            case .change(let change): return "c\(change.seq)"
            case .resyncRequired(_, let seq, let reason): return "r\(seq):\(reason)"
            default: return "?"
            }
        }
    }

    @Test func theFirstMarkerIsTheStartAndReplaysAreSkipped() {
        var position = NATSFeedPosition()
        #expect(position.apply(Self.marker("E", 0)).isEmpty, "the stream's first marker is no gap")
        #expect(Self.seqs(position.apply(Self.change("E", 1))) == ["c1"])
        #expect(position.apply(Self.change("E", 1)).isEmpty, "none twice")
        #expect(position.apply(Self.marker("E", 1)).isEmpty, "a marker at the position is no gap")
        #expect(Self.seqs(position.apply(Self.change("E", 2))) == ["c2"])
    }

    @Test func aResumedPositionSkipsUpToItsSeqAndReportsGaps() {
        var position = NATSFeedPosition(after: ResumePoint(epoch: "E", seq: 2))
        #expect(position.apply(Self.change("E", 2)).isEmpty, "exclusive: seq 2 was seen")
        #expect(Self.seqs(position.apply(Self.change("E", 3))) == ["c3"])
        #expect(Self.seqs(position.apply(Self.change("E", 6))) == ["r5:history-trimmed", "c6"])
        #expect(Self.seqs(position.apply(Self.marker("E", 9))) == ["r9:history-trimmed"])
        #expect(Self.seqs(position.apply(Self.marker("F", 0))) == ["r0:different-epoch"])
        #expect(Self.seqs(position.apply(Self.change("F", 1))) == ["c1"])
        #expect(position.point == ResumePoint(epoch: "F", seq: 1))
    }

    @Test func whatTheBucketAlreadyShowedIsLeftOut() {
        var position = NATSFeedPosition()
        let dune = Book(id: "1", name: "Dune", author: "Herbert")
        let emma = Book(id: "2", name: "Emma", author: "Austen")
        position.seeded(at: ResumePoint(epoch: "E", seq: 4), aheadVersions: ["1": 5])
        guard case .change(let change)? = position.apply(Self.change("E", 5, inserted: [dune, emma])).last else {
            Issue.record("a change")
            return
        }
        #expect(change.changes.inserted == [emma], "book 1 was in the bucket at version 5")
        guard case .change(let later)? = position.apply(Self.change("E", 6, deleted: [dune])).last else {
            Issue.record("a change")
            return
        }
        #expect(later.changes.deleted == [dune], "later changes are whole")
    }
}

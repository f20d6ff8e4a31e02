import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksDaemon

@Suite struct ReplicaFeedTests {
    let subscriber = ReplyTarget(.socket, 7)

    func change(_ seq: UInt64, epoch: String = "O") -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: epoch, seq: seq, source: .file, time: Date(timeIntervalSince1970: 0),
            changes: ChangeSet(inserted: [Book(id: "\(seq)", name: "N\(seq)", author: "A")], updated: [], deleted: []))
    }

    func feed(through last: UInt64, limit: Int = 4096) -> ReplicaFeed {
        var feed = ReplicaFeed(limit: limit)
        feed.jump(epoch: "O", seq: 2)
        for seq in 3...last { feed.announce(change(seq)) }
        return feed
    }

    @Test func aResumeInTheLogIsReplayedFromTheOwnerChangeSetsAfterIt() {
        var feed = feed(through: 6)
        let replayed = feed.resume(subscriber, after: ResumePoint(epoch: "O", seq: 4))
        #expect(replayed)
        feed.announce(change(7))  // announced before the subscription starts: replayed too
        let start = feed.start(subscriber)
        #expect(start == .replay([change(5), change(6), change(7)]))
        let again = feed.start(subscriber)
        #expect(again == .plain, "taken once")
    }

    @Test func aResumeAtThePositionIsAnEmptyReplayEvenAfterAJump() {
        var feed = ReplicaFeed()
        feed.jump(epoch: "O", seq: 9)
        let replayed = feed.resume(subscriber, after: ResumePoint(epoch: "O", seq: 9))
        let start = feed.start(subscriber)
        #expect(replayed && start == .replay([]))
    }

    @Test func aResumeTheLogCannotServeIsAResync() {
        var feed = feed(through: 20, limit: 8)
        let cases: [(ResumePoint?, String)] = [
            (ResumePoint(epoch: "X", seq: 5), "different-epoch"), (ResumePoint(epoch: "O", seq: 21), "future-seq"),
            (ResumePoint(epoch: "O", seq: 4), "history-trimmed"), (nil, "history-trimmed"),
        ]
        for (point, reason) in cases {
            let replayed = feed.resume(subscriber, after: point)
            let start = feed.start(subscriber)
            #expect(!replayed && start == .resync(reason: reason), "\(String(describing: point))")
        }
        let replayed = feed.resume(subscriber, after: ResumePoint(epoch: "O", seq: 16))
        let start = feed.start(subscriber)
        #expect(replayed && start == .replay([change(17), change(18), change(19), change(20)]))
    }

    @Test func aGapInTheAnnouncedChangeSetsEmptiesTheLog() {
        var feed = feed(through: 5)
        feed.announce(change(9))
        let replayed = feed.resume(subscriber, after: ResumePoint(epoch: "O", seq: 5))
        #expect(!replayed && feed.position?.seq == 9)
    }
}

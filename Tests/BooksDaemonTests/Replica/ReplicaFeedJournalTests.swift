import BooksCore
import BooksProtocol
import BooksStore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// What a replica's feed announced, kept in the state directory: read back as announced (the
/// owner's time, source, actor), replayed into a feed that resumes as the one before the
/// restart did, a line cut short ignored, and the file bounded.
@Suite struct ReplicaFeedJournalTests {
    static func change(_ seq: UInt64, epoch: String = "O") -> SequencedChangeSet {
        var change = SequencedChangeSet(
            epoch: epoch, seq: seq, source: .client, time: Date(timeIntervalSince1970: 1_800_000_000.125),
            changes: ChangeSet(inserted: [Book(id: "\(seq)", name: "N\(seq)", author: "A")], updated: [], deleted: []),
            actor: ChangeActor(uid: 1000, user: "ann", pid: 42, program: "booksctl"))
        change.mergedBase = seq > 1 ? seq - 1 : nil
        return change
    }

    static func feed(_ announcements: [ReplicaAnnouncement], limit: Int = 4096) -> ReplicaFeed {
        var feed = ReplicaFeed(limit: limit)
        for announcement in announcements {
            switch announcement {
            case .change(let change): feed.announce(change)
            case .jump(let epoch, let seq): feed.jump(epoch: epoch, seq: seq)
            }
        }
        return feed
    }

    @Test func aLineReadsBackAsTheAnnouncement() {
        for announcement in [ReplicaAnnouncement.change(Self.change(7)), .jump(epoch: "E-1", seq: 12)] {
            let line = ReplicaFeedJournal.line(announcement)
            #expect(line.last == UInt8(ascii: "\n") && line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            #expect(ReplicaFeedJournal.announcement(line.dropLast()) == announcement, "\(announcement)")
        }
        #expect(ReplicaFeedJournal.announcement(Array("J\t12".utf8)[...]) == nil)
        #expect(ReplicaFeedJournal.announcement(Array("{\"event\":\"chan".utf8)[...]) == nil)
    }

    @Test func aJournalReplayedIntoANewFeedResumesAsTheFeedBeforeTheRestart() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica-feed")
        defer { dir.remove() }
        let directory = try StateDirectory.open(dir.path + "/state")
        var journal = ReplicaFeedJournal(directory: directory)
        let announced: [ReplicaAnnouncement] =
            [.change(Self.change(1)), .jump(epoch: "O", seq: 5)] + (6...9).map { .change(Self.change($0)) }
        var live = ReplicaFeed()
        for announcement in announced {
            switch announcement {
            case .change(let change): live.announce(change)
            case .jump(let epoch, let seq): live.jump(epoch: epoch, seq: seq)
            }
            try journal.keep(announcement, limit: live.limit, log: { live.kept })
        }
        var reader = ReplicaFeedJournal(directory: directory)
        var restored = Self.feed(reader.load())
        #expect(restored.kept == live.kept && restored.kept.map(\.seq) == [6, 7, 8, 9])
        #expect(restored.position?.epoch == "O" && restored.position?.seq == 9)
        let subscriber = ReplyTarget(.socket, 3)
        let replayed = restored.resume(subscriber, after: ResumePoint(epoch: "O", seq: 5))
        let start = restored.start(subscriber)
        #expect(replayed && start == .replay((6...9).map { Self.change($0) }))
        // A line cut short by a crash ends the journal.
        let cut = Array(ReplicaFeedJournal.line(.change(Self.change(10))).prefix(30))
        try directory.append(ReplicaFeedJournal.name, cut, durably: false)
        var torn = ReplicaFeedJournal(directory: directory)
        #expect(Self.feed(torn.load()).kept.map(\.seq) == [6, 7, 8, 9])
    }

    @Test func theJournalHoldsAtMostTwiceTheFeedsLimit() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-replica-feed")
        defer { dir.remove() }
        let directory = try StateDirectory.open(dir.path + "/state")
        var journal = ReplicaFeedJournal(directory: directory)
        var live = ReplicaFeed(limit: 8)
        for seq in UInt64(1)...100 {
            live.announce(Self.change(seq))
            try journal.keep(.change(Self.change(seq)), limit: live.limit, log: { live.kept })
            #expect(journal.lines <= 16)
        }
        var reader = ReplicaFeedJournal(directory: directory)
        let loaded = reader.load()
        #expect(loaded.count <= 16 && reader.lines == loaded.count)
        #expect(Self.feed(loaded, limit: 8).kept == live.kept)
        #expect(live.kept.last?.seq == 100)
    }
}

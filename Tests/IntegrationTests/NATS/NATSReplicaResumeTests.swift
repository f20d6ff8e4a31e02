import BooksCore
import BooksProtocol
import BooksTestSupport
import Testing

/// A replica's feed across a replica restart: a subscriber resumes in the owner's seqs from what
/// the replica announced before it restarted, and every change event carries the owner's time
/// (owner and replica, real nats-server, the replica killed -9).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaResumeTests {
    typealias Feed = NATSReplicaFeedTests

    /// An owner of the seed rows and a replica holding them, with a subscriber on each.
    static func subscribedOwnerAndReplica(
        _ server: NATSServerProcess
    ) async throws -> (FeedDaemon, FeedDaemon, LineClient, LineClient) {
        let owner = try await FeedDaemon(rows: NATSReplicaTests.seed, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: NATSReplicaTests.seed)
        let (ownerFeed, ownerAt) = try Feed.subscribe(owner)
        await Feed.expectAnnounced(replica, ownerAt)
        let (replicaFeed, _) = try Feed.subscribe(replica)
        return (owner, replica, ownerFeed, replicaFeed)
    }

    /// Kills `replica` (-9), appends `row` to the owner's file while it is down, restarts it and
    /// waits until it announced that change; returns the owner's change event.
    static func changeWhileDown(
        _ owner: FeedDaemon, _ replica: FeedDaemon, _ ownerFeed: LineClient, append row: String
    ) async throws -> Event {
        replica.crash()
        try owner.handAppend(row)
        let made = try Feed.nextEvent(ownerFeed)
        try await replica.start()
        await Feed.expectAnnounced(replica, "\(made.epoch):\(made.seq)")
        return made
    }

    @Test func aSubscriberResumesOnAReplicaFromBeforeTheReplicaRestarted() async throws {
        let server = try NATSServerProcess()
        let (owner, replica, ownerFeed, replicaFeed) = try await Self.subscribedOwnerAndReplica(server)
        _ = try await owner.connect().insert([BookDraft(id: "4", name: "Walden", author: "Thoreau")])
        let seen = try Feed.nextEvent(replicaFeed)
        Feed.expectSame(try Feed.nextEvent(ownerFeed), seen)
        replicaFeed.close()
        // Announced by the replica after the subscriber went, then the replica is killed -9 and
        // the owner changes while it is down.
        try owner.handAppend("5|Persuasion|Austen")
        let before = try Feed.nextEvent(ownerFeed)
        await Feed.expectAnnounced(replica, "\(before.epoch):\(before.seq)")
        let during = try await Self.changeWhileDown(owner, replica, ownerFeed, append: "6|Beloved|Morrison")
        var (resumed, at) = try Feed.subscribe(replica, resume: seen)
        #expect(at == "\(during.epoch):\(during.seq)", "the subscribe reply states the owner position")
        let first = try Feed.nextEvent(resumed)
        #expect(first.event == .change, "replayed, not \(first.event) (\(first.reason ?? ""))")
        Feed.expectSame(before, first)
        Feed.expectSame(during, try Feed.nextEvent(resumed))
        resumed.close()
        // Again after a clean stop and start: the same replay.
        #expect(replica.stop() == 0)
        try await replica.start()
        // Its socket answers before its link to the owner is attached (the NATS step starts after
        // the socket's clients are served): wait until it states the owner position again.
        await Feed.expectAnnounced(replica, "\(during.epoch):\(during.seq)")
        (resumed, at) = try Feed.subscribe(replica, resume: seen)
        #expect(at == "\(during.epoch):\(during.seq)")
        Feed.expectSame(before, try Feed.nextEvent(resumed))
        Feed.expectSame(during, try Feed.nextEvent(resumed))
        await ReplicaDaemon.expectConverged(
            [owner, replica],
            to: NATSReplicaTests.seed + ["4|Walden|Thoreau", "5|Persuasion|Austen", "6|Beloved|Morrison"])
    }

    @Test func aReplicasChangeEventsCarryTheOwnersTime() async throws {
        let server = try NATSServerProcess()
        let (owner, replica, ownerFeed, replicaFeed) = try await Self.subscribedOwnerAndReplica(server)
        try owner.handAppend("4|Walden|Thoreau")
        let live = try Feed.nextEvent(ownerFeed)
        let seenLive = try Feed.nextEvent(replicaFeed)
        #expect(seenLive.time == live.time, "live: owner \(live.time ?? "-"), replica \(seenLive.time ?? "-")")
        replicaFeed.close()
        // Read by the replica only after its restart, seconds after the owner made it.
        let made = try await Self.changeWhileDown(owner, replica, ownerFeed, append: "5|Persuasion|Austen")
        let (resumed, _) = try Feed.subscribe(replica, resume: live)
        let read = try Feed.nextEvent(resumed)
        Feed.expectSame(made, read)
        #expect(read.time == made.time, "owner \(made.time ?? "-"), replica \(read.time ?? "-")")
    }
}

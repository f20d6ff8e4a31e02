import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// A replica's socket feed is the owner's: its subscribers see the owner's epoch and seqs and the
/// owner's changes, each once the replica's file holds it, and resume in the owner's seqs.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaFeedTests {
    /// A raw subscriber of `daemon` (a plain feed, or resumed after `resume`); returns it and the
    /// subscribe reply's `epoch:seq`.
    static func subscribe(_ daemon: FeedDaemon, resume: Event? = nil) throws -> (LineClient, String) {
        let client = try LineClient(path: daemon.socket)
        _ = try #require(client.hello(), "no hello reply")
        let from = resume.map { #","resume":{"epoch":"\#($0.epoch)","seq":\#($0.seq)}"# } ?? ""
        #expect(client.send(#"{"id":"s","op":"subscribe","snapshot":false\#(from)}"#))
        let line = try #require(client.readLine(timeout: 15, containing: #""id":"s""#), "no subscribe reply")
        guard case .reply(let reply) = try MessageDecoder().decode(Array(line.utf8)) else {
            throw TestSupportError("not a reply: \(line)")
        }
        return (client, "\(reply.result?.epoch ?? ""):\(reply.result?.seq ?? 0)")
    }

    /// The next event `client` reads (any kind but heartbeats), within `seconds`.
    static func nextEvent(_ client: LineClient, within seconds: Int = 30) throws -> Event {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard let line = client.readLine(timeout: 1) else { continue }
            if case .event(let event) = try MessageDecoder().decode(Array(line.utf8)), event.event != .heartbeat {
                return event
            }
        }
        throw TestSupportError("no event within \(seconds) s")
    }

    /// Waits until `hello` on `replica` states the owner position `epochSeq` (`E:S`): the replica
    /// announces a position just after its file holds it.
    static func expectAnnounced(
        _ replica: FeedDaemon, _ epochSeq: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let parts = epochSeq.split(separator: ":").map(String.init)
        let (epoch, seq) = (parts.first ?? "", #""seq":\#(parts.last ?? "")"#)
        let announced = await eventually(timeout: 20, interval: 0.05) {
            (try? LineClient(path: replica.socket))?.hello().map { $0.contains(seq) && $0.contains(epoch) } == true
        }
        #expect(announced, "hello on the replica never stated \(epochSeq)", sourceLocation: sourceLocation)
    }

    /// The same change seen by two subscribers: same kind, position, changes and attribution.
    static func expectSame(_ owner: Event, _ replica: Event, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(owner.event == .change, "owner: \(owner)", sourceLocation: sourceLocation)
        #expect(replica.event == owner.event, "replica: \(replica)", sourceLocation: sourceLocation)
        #expect(
            "\(replica.epoch):\(replica.seq)" == "\(owner.epoch):\(owner.seq)", "the replica's feed is in its own seqs",
            sourceLocation: sourceLocation)
        #expect(replica.inserted == owner.inserted, sourceLocation: sourceLocation)
        #expect(replica.updated == owner.updated, sourceLocation: sourceLocation)
        #expect(replica.deleted == owner.deleted, sourceLocation: sourceLocation)
        #expect(replica.source == owner.source, sourceLocation: sourceLocation)
        #expect(replica.actor == owner.actor, sourceLocation: sourceLocation)
        #expect(replica.time == owner.time, "the owner's time", sourceLocation: sourceLocation)
    }

    @Test func aReplicasSubscribersSeeTheOwnersSeqsAndChangesAndResumeInThem() async throws {
        let server = try NATSServerProcess()
        let owner = try await FeedDaemon(rows: NATSReplicaTests.seed, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        let all = [owner, replica]
        var expected = NATSReplicaTests.seed
        await ReplicaDaemon.expectConverged(all, to: expected)
        let (ownerFeed, ownerAt) = try Self.subscribe(owner)
        await Self.expectAnnounced(replica, ownerAt)
        var (replicaFeed, replicaAt) = try Self.subscribe(replica)
        #expect(replicaAt == ownerAt, "subscribe's position on the replica")
        // A client write on the owner.
        _ = try await owner.connect().insert([BookDraft(id: "4", name: "Walden", author: "Thoreau")])
        Self.expectSame(try Self.nextEvent(ownerFeed), try Self.nextEvent(replicaFeed))
        // A hand edit on the owner.
        try owner.handAppend("5|Persuasion|Austen")
        Self.expectSame(try Self.nextEvent(ownerFeed), try Self.nextEvent(replicaFeed))
        // A hand edit on the replica: announced there when its owner change set comes back.
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|J. Austen/", replica.file)
        let edited = try Self.nextEvent(ownerFeed)
        Self.expectSame(edited, try Self.nextEvent(replicaFeed))
        #expect(edited.updated?.first?.new == Book(id: "2", name: "Emma", author: "J. Austen"))
        expected += ["4|Walden|Thoreau", "5|Persuasion|Austen"]
        expected[1] = "2|Emma|J. Austen"
        await ReplicaDaemon.expectConverged(all, to: expected)
        // The replica's subscriber reconnects after missing a change: replayed in the owner's seqs.
        replicaFeed.close()
        try owner.handAppend("6|Beloved|Morrison")
        let missed = try Self.nextEvent(ownerFeed)
        await ReplicaDaemon.expectConverged(all, to: expected + ["6|Beloved|Morrison"])
        await Self.expectAnnounced(replica, "\(missed.epoch):\(missed.seq)")
        (replicaFeed, replicaAt) = try Self.subscribe(replica, resume: edited)
        #expect(replicaAt == "\(missed.epoch):\(missed.seq)")
        Self.expectSame(missed, try Self.nextEvent(replicaFeed))
    }

    @Test func aHandEditQueuedOfflineIsAnnouncedOnTheReplicaOnlyAsTheOwnersChangeSet() async throws {
        let server = try NATSServerProcess()
        let owner = try await FeedDaemon(rows: NATSReplicaTests.seed, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: NATSReplicaTests.seed)
        let (ownerFeed, _) = try Self.subscribe(owner)
        let (replicaFeed, _) = try Self.subscribe(replica)
        server.kill()
        try await ReplicaDaemon.sed("s/^3|Kim|Rudyard Kipling$/3|Kim|R. Kipling/", replica.file)
        let kim = Book(id: "3", name: "Kim", author: "R. Kipling")
        let client = try await replica.connect()
        let served = await eventually(timeout: 20, interval: 0.05) {
            (try? await client.list().books.contains(kim)) == true
        }
        #expect(served, "the queued edit is served at once")
        #expect((try? Self.nextEvent(replicaFeed, within: 2)) == nil, "announced before the owner ordered it")
        try server.start()
        let ordered = try Self.nextEvent(ownerFeed)
        Self.expectSame(ordered, try Self.nextEvent(replicaFeed))
        #expect(ordered.updated?.first?.new == kim)
    }
}

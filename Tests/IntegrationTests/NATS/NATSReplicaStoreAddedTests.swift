import BooksProtocol
import BooksTestSupport
import Testing

/// A store the owner adds at run time, replicated by a replica folder: its `store-added` on the
/// replica's socket is at the owner's position, and a `["*"]` subscriber there learns its books
/// in the owner's lineage (real nats-server, owner `--dir` and replica `--replica-dir`).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaStoreAddedTests {
    /// A version-2 subscriber of every store of `socket`, without snapshots.
    static func everyStore(_ socket: String) throws -> LineClient {
        let client = try LineClient(path: socket)
        #expect(client.send(#"{"id":"h","op":"hello","version":2}"#))
        _ = try #require(client.readLine(timeout: 15, containing: #""id":"h""#), "no hello reply")
        #expect(client.send(#"{"id":"s","op":"subscribe","stores":["*"],"snapshot":false}"#))
        _ = try #require(client.readLine(timeout: 15, containing: #""id":"s""#), "no subscribe reply")
        return client
    }

    /// The events `client` reads about `store` (heartbeats left out) until `done` says enough,
    /// within 60 s.
    static func events(
        _ client: LineClient, store: String, until done: ([Event]) -> Bool
    ) throws -> [Event] {
        var seen: [Event] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !done(seen) {
            guard let line = client.readLine(timeout: 1) else { continue }
            if case .event(let event) = try MessageDecoder().decode(Array(line.utf8)), event.store == store,
                event.event != .heartbeat
            {
                seen.append(event)
            }
        }
        return seen
    }

    /// Whether `events` hold book 9 (inserted by a change, or in a snapshot).
    static func holdKim(_ events: [Event]) -> Bool {
        events.contains { ($0.inserted ?? []).contains { $0.id == "9" } || ($0.books ?? []).contains { $0.id == "9" } }
    }

    @Test func aStoreAddedOnTheOwnerIsAnnouncedOnTheReplicaAtTheOwnersPosition() async throws {
        let server = try NATSServerProcess()
        let scratch = try TemporaryDirectory(prefix: "replicaadded")
        defer { scratch.remove() }
        let lists = scratch.makeDirectory("lists")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: lists + "/fiction.txt")
        let owner = try await NATSReplicaFolderTests.daemon(server, scratch, "owner", ["--dir", lists])
        defer { owner.stop() }
        let copies = scratch.path + "/copies"
        let replica = try await NATSReplicaFolderTests.daemon(server, scratch, "replica", ["--replica-dir", copies])
        defer { replica.stop() }
        await NATSReplicaFolderTests.expectFile(
            copies + "/fiction.txt", ["1|Dune|Frank Herbert"], logs: [owner, replica])
        let onOwner = try Self.everyStore(owner.socket)
        let onReplica = try Self.everyStore(replica.socket)
        try TestFiles.write("9|Kim|Rudyard Kipling\n", to: lists + "/poems.txt")
        let ownerEvents = try Self.events(onOwner, store: "poems", until: Self.holdKim)
        let replicaEvents = try Self.events(onReplica, store: "poems", until: Self.holdKim)
        let added = try #require(ownerEvents.first { $0.event == .storeAdded }, "owner: \(ownerEvents)")
        let seen = try #require(replicaEvents.first { $0.event == .storeAdded }, "replica: \(replicaEvents)")
        #expect(seen.epoch == added.epoch, "store-added on the replica in the owner's lineage: \(replicaEvents)")
        #expect(seen.seq <= 1, "at the owner's seq 0, or 1 once its books are in: \(replicaEvents)")
        #expect(Self.holdKim(replicaEvents), "the replica's subscriber learns the books: \(replicaEvents)")
        let later = replicaEvents.drop { $0.event != .storeAdded }.filter {
            $0.event == .change || $0.event == .snapshot
        }
        #expect(later.allSatisfy { $0.epoch == added.epoch }, "in the owner's lineage: \(replicaEvents)")
    }
}

import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Testing

/// A replica's history is the owner's: `log`, `show`, `blame`, `list --at` and `undo` on a
/// replica's socket answer in the owner's seqs and with the owner's record of who did what, and
/// fail with `store-unavailable` while the owner cannot be reached (owner and replica, real
/// nats-server, real booksctl).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaHistoryTests {
    typealias Parity = NATSCLIParityTests

    /// The owner with seqs 1…4 (a hand insert of book 1, a client insert, a hand update and a hand
    /// delete of book 1) and a replica that holds (and announced) all four.
    static func editedOwnerAndReplica() async throws -> (NATSServerProcess, FeedDaemon, FeedDaemon) {
        let (server, owner) = try await Parity.editedDaemon()
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: ReplicaDaemon.lines(of: owner))
        let at = try #require(try await owner.connect().ping())
        await NATSReplicaFeedTests.expectAnnounced(replica, "\(at.epoch):\(at.seq)")
        return (server, owner, replica)
    }

    @Test func logShowBlameAndListAtOnAReplicaAreTheOwnersHistory() async throws {
        let (server, owner, replica) = try await Self.editedOwnerAndReplica()
        let queries: [[String]] = [
            ["log", "--json"], ["log"], ["log", "--id", "1", "--json"], ["log", "--since", "2", "--json"],
            ["show", "3", "--json"], ["show", "999"], ["blame", "1", "--json"], ["blame", "--json"],
            ["list", "--at", "2", "--json"], ["list", "--at", "3"],
        ]
        for query in queries {
            let onOwner = try await Parity.booksctl(nats: nil, owner, query)
            let onReplica = try await Parity.booksctl(nats: nil, replica, query)
            #expect(onReplica.status == onOwner.status, "\(query): owner \(onOwner), replica \(onReplica)")
            #expect(onReplica.output == onOwner.output, "\(query): the owner's lines on the replica")
            #expect(onReplica.stderr == onOwner.stderr, "\(query): the owner's errors on the replica")
        }
        // "Who deleted my book?" asked on the replica: the owner's record (a hand edit of its file).
        let blame = try await Parity.booksctl(nats: nil, replica, ["blame", "1", "--json"])
        let entry = Parity.members(blame.lines.first ?? "")
        #expect(entry["seq"] == "4" && entry["change"] == "deleted" && entry["source"] == "file", "\(blame)")
        // Undo on the replica undoes the owner's change set 4 (the delete): book 1 is back everywhere.
        let undone = try await Parity.booksctl(nats: nil, replica, ["undo", "4"])
        #expect(undone.status == 0 && undone.output.contains("the store is at seq 5"), "\(undone)")
        let last = try await Parity.booksctl(nats: nil, owner, ["log", "-n", "1", "--json"])
        #expect(Parity.members(last.lines.first ?? "")["source"] == "undo", "\(last)")
        await ReplicaDaemon.expectConverged([owner, replica], to: ReplicaDaemon.lines(of: owner))
        #expect(ReplicaDaemon.lines(of: replica).contains("1|Dune|Frank Herbert"))
        _ = server
    }

    @Test func aReplicasHistoryIsUnavailableWhileItsOwnerIsUnreachable() async throws {
        let (server, owner, replica) = try await Self.editedOwnerAndReplica()
        owner.crash()  // NATS up, no owner: nobody answers on the api subject
        for query in [["log"], ["show", "3"], ["blame", "1"], ["list", "--at", "2"]] {
            let answer = try await Parity.booksctl(nats: nil, replica, query)
            #expect(answer.status != 0 && answer.output.isEmpty, "\(query): \(answer)")
            #expect(answer.stderr.contains("owner"), "\(query): says why: \(answer.stderr)")
        }
        server.kill()  // NATS down
        let answer = try await Parity.booksctl(nats: nil, replica, ["log"])
        #expect(answer.status != 0 && answer.stderr.contains("unreachable"), "\(answer)")
        // Today's books are still served locally.
        let listed = try await Parity.booksctl(nats: nil, replica, ["list", "--json"])
        #expect(listed.status == 0 && listed.output.contains("Emma"), "\(listed)")
    }
}

import BooksClient
import BooksCore
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// Replicas: an owner booksd and two `--replica default=PATH` booksd processes, each with its own
/// socket, state and file, on one real nats-server. Every test ends with the record sets of all
/// files equal, no bad line, no duplicate id and every acknowledged write present.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaTests {
    static let seed = ["1|Dune|Frank Herbert", "2|Emma|Jane Austen", "3|Kim|Rudyard Kipling"]

    /// Owner (`rows`) and two empty replicas.
    static func topology(_ server: NATSServerProcess, rows: [String] = seed) async throws -> [FeedDaemon] {
        let owner = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"])
        let first = try await ReplicaDaemon.start(server)
        let second = try await ReplicaDaemon.start(server)
        return [owner, first, second]
    }

    @Test func replicasCopyTheOwnerAndCarryHandEditsAndClientWritesEverywhere() async throws {
        let server = try NATSServerProcess()
        let all = try await Self.topology(server)
        let (owner, first, second) = (all[0], all[1], all[2])
        await ReplicaDaemon.expectConverged(all, to: Self.seed)
        // A sed hand edit on a replica reaches the owner and the other replica.
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|J. Austen/", first.file)
        var expected = ["1|Dune|Frank Herbert", "2|Emma|J. Austen", "3|Kim|Rudyard Kipling"]
        await ReplicaDaemon.expectConverged(all, to: expected)
        // A client write on the owner and one on a replica's socket reach every file.
        let ownerClient = try await owner.connect()
        let added = try await ownerClient.insert([BookDraft(id: "4", name: "Walden", author: "Thoreau")])
        expected.append("4|Walden|Thoreau")
        #expect(added.count == 1)
        await ReplicaDaemon.expectConverged(all, to: expected)
        // On the replica's socket the write goes to the owner; once answered, the replica serves it.
        let replicaClient = try await second.connect()
        _ = try await replicaClient.insert([BookDraft(id: "5", name: "Ulysses", author: "Joyce")])
        let ulysses = Book(id: "5", name: "Ulysses", author: "Joyce")
        #expect(try await replicaClient.list().books.contains(ulysses), "read your own write on the replica")
        #expect(try owner.fileBooks().contains(ulysses), "the owner wrote it before answering")
        expected.append("5|Ulysses|Joyce")
        await ReplicaDaemon.expectConverged(all, to: expected)
        // A hand append on the owner reaches both replicas.
        try owner.handAppend("6|Emma|Austen")
        expected.append("6|Emma|Austen")
        await ReplicaDaemon.expectConverged(all, to: expected)
    }

    /// Both replicas edit by hand at once (`first` on one, `second` on the other); every file ends as `expected`.
    static func concurrentSeds(_ first: String, _ second: String, expected: [String]) async throws {
        let server = try NATSServerProcess()
        let all = try await topology(server)
        await ReplicaDaemon.expectConverged(all, to: seed)
        async let one: Void = ReplicaDaemon.sed(first, all[1].file)
        async let two: Void = ReplicaDaemon.sed(second, all[2].file)
        _ = try await (one, two)
        await ReplicaDaemon.expectConverged(all, to: expected)
    }

    @Test func concurrentEditsOfDifferentBooksOnTwoReplicasAreBothEverywhere() async throws {
        try await Self.concurrentSeds(
            "s/^1|Dune|Frank Herbert$/1|Dune Messiah|Frank Herbert/", "s/^3|Kim|Rudyard Kipling$/3|Kim|R. Kipling/",
            expected: ["1|Dune Messiah|Frank Herbert", "2|Emma|Jane Austen", "3|Kim|R. Kipling"])
    }

    @Test func concurrentEditsOfTwoFieldsOfTheSameBookOnTwoReplicasAreMergedEverywhere() async throws {
        try await Self.concurrentSeds(
            "s/^1|Dune|Frank Herbert$/1|Dune Messiah|Frank Herbert/", "s/^1|Dune|Frank Herbert$/1|Dune|F. Herbert/",
            expected: ["1|Dune Messiah|F. Herbert", "2|Emma|Jane Austen", "3|Kim|Rudyard Kipling"])
    }

    @Test func aReplicaKilledWithEditsMadeWhileItWasDownSendsThemAfterItsRestart() async throws {
        let server = try NATSServerProcess()
        let all = try await Self.topology(server)
        await ReplicaDaemon.expectConverged(all, to: Self.seed)
        all[1].crash()
        try all[1].handAppend("7|Middlemarch|George Eliot")
        try await ReplicaDaemon.sed("/^3|/d", all[1].file)
        try all[0].handAppend("8|Persuasion|Austen")  // the owner moves on meanwhile
        try await all[1].start()
        await ReplicaDaemon.expectConverged(
            all,
            to: [
                "1|Dune|Frank Herbert", "2|Emma|Jane Austen", "7|Middlemarch|George Eliot", "8|Persuasion|Austen",
            ])
    }

    @Test func theOwnerKilledAndRestartedMidStreamLosesNoReplicaEdit() async throws {
        let server = try NATSServerProcess()
        let all = try await Self.topology(server)
        await ReplicaDaemon.expectConverged(all, to: Self.seed)
        try all[0].handAppend("12|Hamlet|Shakespeare")
        all[0].crash()
        try all[1].handAppend("13|Othello|Shakespeare")
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|Austen, Jane/", all[2].file)
        try await all[0].start()
        await ReplicaDaemon.expectConverged(
            all,
            to: [
                "1|Dune|Frank Herbert", "12|Hamlet|Shakespeare", "13|Othello|Shakespeare", "2|Emma|Austen, Jane",
                "3|Kim|Rudyard Kipling",
            ])
    }

    @Test func editsOnBothSidesWhileNATSIsDownConvergeWhenItIsBack() async throws {
        let server = try NATSServerProcess()
        let all = try await Self.topology(server)
        await ReplicaDaemon.expectConverged(all, to: Self.seed)
        server.kill()
        try all[0].handAppend("9|Beloved|Toni Morrison")
        try await ReplicaDaemon.sed("s/^1|Dune|Frank Herbert$/1|Dune|F. Herbert/", all[1].file)
        try all[2].handAppend("10|Emma|Austen (2nd)")
        // Local service goes on: the edits are in each file and served on each socket.
        let local = [
            Book(id: "9", name: "Beloved", author: "Toni Morrison"), Book(id: "1", name: "Dune", author: "F. Herbert"),
            Book(id: "10", name: "Emma", author: "Austen (2nd)"),
        ]
        for (daemon, book) in zip(all, local) {
            let client = try await daemon.connect()
            let served = await eventually(timeout: 20, interval: 0.05) {
                (try? await client.list().books.contains(book)) == true
            }
            #expect(served, "\(daemon.file): \(book) not served while NATS is down")
        }
        // The replica's status says it is offline with its edit queued.
        let firstClient = try await all[1].connect()
        var line = ""
        let offline = await eventually(timeout: 20, interval: 0.05) {
            line = (try? await firstClient.status().replica) ?? ""
            return line.contains("offline since") && line.contains("1 edit(s) queued")
        }
        #expect(offline, "status: \(line)")
        // A client write on a replica's socket fails clearly while the owner is unreachable.
        let replicaClient = try await all[2].connect()
        do {
            _ = try await replicaClient.insert([BookDraft(id: "11", name: "Lost", author: "Nobody")])
            Issue.record("a write on a replica succeeded while NATS was down")
        } catch {
            #expect("\(error)".contains("store-unavailable"), "\(error)")
        }
        try server.start()
        await ReplicaDaemon.expectConverged(
            all,
            to: [
                "1|Dune|F. Herbert", "10|Emma|Austen (2nd)", "2|Emma|Jane Austen", "3|Kim|Rudyard Kipling",
                "9|Beloved|Toni Morrison",
            ])
        let synced = await eventually(timeout: 20, interval: 0.05) {
            line = (try? await firstClient.status().replica) ?? ""
            return line.hasPrefix("in sync")
        }
        #expect(synced, "status: \(line)")
    }

    /// A first copy of a bucket several pages long (`KeyValueStore.forEachValue`), then an owner
    /// restart that reconciles that bucket page by page, then a hand edit on the replica.
    @Test func aFirstCopyOfABucketOfSeveralPagesIsWholeAndTheReplicaKeepsWorking() async throws {
        let server = try NATSServerProcess()
        var rows = (1...2500).map { "\($0)|Title \($0)|Author \($0 % 97)" }
        let owner = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: rows)
        owner.crash()
        try await owner.start()
        try await ReplicaDaemon.sed("s/^2500|Title 2500|/2500|Last Title|/", replica.file)
        rows[2499] = "2500|Last Title|Author \(2500 % 97)"
        await ReplicaDaemon.expectConverged([owner, replica], to: rows)
    }

    /// A first copy larger than one client save (`SaveLimits.maxChanges` books) is written into
    /// the replica's empty file as one durable write: one change set of the replica's own engine,
    /// which `status` states (`log` on a replica is the owner's history; at 1M rows, writes of
    /// 10,000 were a hundred commits of the whole file).
    @Test func aFirstCopyLargerThanOneClientSaveIsOneWriteOfTheReplicasFile() async throws {
        let server = try NATSServerProcess()
        let rows = (1...12_000).map { "\($0)|Title \($0)|Author \($0 % 97)" }
        let owner = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: rows)
        let status = try await replica.connect().status()
        #expect(status.seq == 1, "the copy's local change sets: \(status.seq)")
        #expect(status.bookCount == 12_000)
    }

    /// The steps of docs/SCALE-OUT.md, "Promoting a replica by hand": the owner's host is gone
    /// for good (killed -9, never restarted), edits are made on both replicas meanwhile; the
    /// replica that applied the most (the same owner position on both here) is stopped and
    /// started as the store's owner on the same file and state directory; the other replica
    /// follows the new lineage, sends its queued edit, and writes go through the new owner.
    @Test func aReplicaPromotedByHandWhenTheOwnerIsGoneBecomesTheOwnerOfTheOthers() async throws {
        let server = try NATSServerProcess()
        let all = try await Self.topology(server)
        let (owner, promoted, other) = (all[0], all[1], all[2])
        await ReplicaDaemon.expectConverged(all, to: Self.seed)
        owner.crash()  // 1. gone for good
        try promoted.handAppend("20|Persuasion|Jane Austen")
        try await ReplicaDaemon.sed("s/^3|Kim|Rudyard Kipling$/3|Kim|R. Kipling/", other.file)
        // 2. The replica that applied the most: `status` names the owner position each one is at.
        let promotedStatus = try await promoted.connect().status().replica ?? ""
        let otherStatus = try await other.connect().status().replica ?? ""
        let position = { (line: String) in line.range(of: "(owner ").map { String(line[$0.lowerBound...]) } }
        #expect(position(promotedStatus) != nil && position(promotedStatus) == position(otherStatus))
        // 3. Stopped, started as the store itself (`--replica default=FILE` dropped), same state directory.
        #expect(promoted.stop() == 0)
        promoted.arguments = []
        try await promoted.start()
        // 4. The other replica reads the new lineage's bucket and sends its queued edit.
        var expected = ["1|Dune|Frank Herbert", "2|Emma|Jane Austen", "3|Kim|R. Kipling", "20|Persuasion|Jane Austen"]
        await ReplicaDaemon.expectConverged([promoted, other], to: expected)
        let client = try await other.connect()
        _ = try await client.insert([BookDraft(id: "21", name: "Sanditon", author: "Jane Austen")])
        try await ReplicaDaemon.sed("s/^1|Dune|Frank Herbert$/1|Dune|F. Herbert/", other.file)
        expected += ["21|Sanditon|Jane Austen"]
        expected[0] = "1|Dune|F. Herbert"
        await ReplicaDaemon.expectConverged([promoted, other], to: expected)
        #expect((try await promoted.connect().status().replica) == nil, "the promoted booksd is no replica")
    }
}

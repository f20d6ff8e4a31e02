import BooksClient
import BooksCore
import BooksTestSupport
import Testing

/// Conflicts between replicas: kept by the owner (which orders every write) and listed, the
/// same, on every host; resolvable from any host (owner and two replicas, real nats-server).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaConflictTests {
    /// Every daemon's `conflicts` list.
    static func conflictLists(_ daemons: [FeedDaemon]) async throws -> [[RecordedConflict]] {
        var lists: [[RecordedConflict]] = []
        for daemon in daemons {
            let client = try await daemon.connect()
            defer { client.close() }
            lists.append(try await client.conflicts())
        }
        return lists
    }

    @Test func aSameFieldEditOnTwoReplicasIsOneConflictListedAlikeOnEveryHostAndResolvable() async throws {
        let server = try NATSServerProcess()
        let all = try await NATSReplicaTests.topology(server)
        let (owner, first, second) = (all[0], all[1], all[2])
        await ReplicaDaemon.expectConverged(all, to: NATSReplicaTests.seed)
        // The second replica edits the author while it is down; the first edits it too, and the
        // owner orders the first's edit before the second's arrives.
        second.crash()
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|J. Austen/", second.file)
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|Miss Austen/", first.file)
        let ordered = ["1|Dune|Frank Herbert", "2|Emma|Miss Austen", "3|Kim|Rudyard Kipling"]
        await ReplicaDaemon.expectConverged([owner, first], to: ordered)
        try await second.start()
        // Merged by the stale-save rules: the later saver's value stands, everywhere.
        await ReplicaDaemon.expectConverged(
            all, to: ["1|Dune|Frank Herbert", "2|Emma|J. Austen", "3|Kim|Rudyard Kipling"])
        var lists: [[RecordedConflict]] = []
        let listed = await eventually(timeout: 20, interval: 0.2) {
            lists = (try? await Self.conflictLists(all)) ?? []
            return lists.count == 3 && lists[0].count == 1 && lists.allSatisfy { $0 == lists[0] }
        }
        #expect(listed, "conflicts on owner, first, second: \(lists)\n\(second.log.suffix(3000))")
        let conflict = try #require(lists.first?.first)
        #expect(conflict.conflict.id == "2")
        #expect(conflict.conflict.kind == .author)
        #expect(conflict.conflict.mine?.author == "J. Austen")
        #expect(conflict.conflict.theirs?.author == "Miss Austen")
        // `booksctl conflicts` on a replica lists it; `booksctl resolve` on the other (taking the
        // others' value) settles it in every file and every list.
        let shown = try await FeedProcess.run(
            BuildProducts.booksctl, ["--socket", second.socket, "conflicts", "--json"])
        #expect(shown.status == 0 && shown.out.contains("J. Austen"), "\(shown)")
        let resolved = try await FeedProcess.run(
            BuildProducts.booksctl, ["--socket", first.socket, "resolve", "\(conflict.id)", "--take", "theirs"])
        #expect(resolved.status == 0, "\(resolved)")
        await ReplicaDaemon.expectConverged(all, to: ordered)
        let empty = await eventually(timeout: 20, interval: 0.2) {
            (try? await Self.conflictLists(all))?.allSatisfy(\.isEmpty) == true
        }
        let left = (try? await Self.conflictLists(all)) ?? []
        #expect(empty, "conflicts left after resolve: \(left)")
    }
}

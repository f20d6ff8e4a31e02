import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import Testing

/// A three-node JetStream cluster (stream replicas 3) losing the stream's leader
/// while hand edits and client writes go on: no gap, no duplicate, the remote view equals the file.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSClusterTests {
    @Test func aClusterLosingTheStreamLeaderLosesNothing() async throws {
        let scratch = try TemporaryDirectory(prefix: "natscluster")
        let servers = try NATSServerProcess.cluster(size: 3, directory: scratch.path)
        let urls = servers.map(\.url).joined(separator: ",")
        let daemon = try await FeedDaemon(rows: ["# books"], settings: ["nats_url=\(urls)", "nats_stream_replicas=3"])
        try await NATSFeedTests.waitForInitialSnapshot(url: urls, timeout: 60)
        let client = try await daemon.connect()
        func edits(_ round: Int) async throws {
            for i in 0..<10 { try daemon.handAppend("r\(round)-\(i)|Hand \(i)|Round \(round)") }
            _ = try await client.insert((0..<10).map { BookDraft(name: "Client \($0)", author: "Round \(round)") })
        }
        try await edits(0)
        let leaderName: Result<String?, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                let connection = try NATSConnection.connect(
                    NATSConnectOptions(urls: NATSConnectOptions.urls(from: urls)))
                return try connection.jetStream().streamLeader("books_default_changes")
            }
        }
        let leader = try #require(try leaderName.get(), "the stream has a leader")
        let index = try #require(Int(leader.dropFirst()), "leader \(leader)") - 1
        servers[index].kill()
        try await edits(1)
        try await edits(2)
        let survivors = servers.enumerated().filter { $0.offset != index }.map(\.element.url).joined(separator: ",")
        let expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        #expect(expected.count == 60)
        var view = NATSStreamView()
        let caughtUp = await eventually(timeout: 60, interval: 0.3) {
            view = (try? await NATSStreamView.read(url: survivors)) ?? NATSStreamView()
            return view.applied(to: []) == expected
        }
        #expect(caughtUp, "not caught up: \(view.changePositions.suffix(3))\n\(daemon.log.suffix(2000))")
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        #expect(view.messages.filter { $0.event.event == .snapshot }.count == 1)
        // The bucket's own stream may still be electing a leader after the kill: retry the listing.
        var bucket: [Book] = []
        let bucketCaughtUp = await eventually(timeout: 60, interval: 0.5) {
            bucket = (try? await NATSStreamView.bucketBooks(url: survivors)) ?? []
            return bucket == expected
        }
        #expect(bucketCaughtUp, "bucket \(bucket.count) books, file \(expected.count)")
    }
}

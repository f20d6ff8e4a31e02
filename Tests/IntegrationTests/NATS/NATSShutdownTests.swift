import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// A clean SIGTERM with `nats_url` set stops the NATS links after the socket's requests were
/// drained: what was committed before the signal is published whole (stream and bucket) before
/// booksd exits 0. With a real nats-server and booksd.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSShutdownTests {
    @Test func aBulkAddJustBeforeSIGTERMIsPublishedWholeAndBooksdExitsZero() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["b1|Dune|Herbert"])
        // Large enough that publishing it (in parts, and 10,000 bucket keys) outlasts a stop
        // that does not wait for the publisher.
        let count = 10_000
        let drafts = (0..<count).map { "Bulk book number \($0) with a long title\tAuthor of bulk book \($0)" }
        let input = daemon.directory + "/bulk.tsv"
        try TestFiles.write(drafts.joined(separator: "\n") + "\n", to: input)
        let added = try await ChildProcess.run(
            ["sh", "-c", "'\(BuildProducts.booksctl)' --socket '\(daemon.socket)' add - < '\(input)'"], timeout: 60)
        #expect(added.succeeded, "\(added)")

        let began = ContinuousClock.now
        let status = daemon.stop()
        #expect(status == 0, "booksd exited \(status)\n\(daemon.log.suffix(2000))")
        #expect(ContinuousClock.now - began < .seconds(30), "the stop took \(ContinuousClock.now - began)")

        // Only what the stopped daemon left on the server counts now.
        let feed = try NATSFeed(options: NATSConnectOptions(urls: [server.url]))
        let received = FeedItems()
        let reader = Task {
            for try await item in feed.changes(from: .all) { received.items.withLock { $0.append(item) } }
        }
        defer { reader.cancel() }
        #expect(
            await eventually(timeout: 20, interval: 0.1) { received.changes.count == 1 },
            "the bulk change set is not in the stream whole\n\(daemon.log.suffix(2000))")
        #expect(received.changes.first?.changes.inserted.count == count)
        let bucket = try await NATSStreamView.bucketBooks(url: server.url)
        #expect(bucket.count == count + 1, "the bucket holds \(bucket.count) books")
    }
}

import BooksClient
import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// A change set larger than the server's `max_payload` (1 MiB) goes out in parts and reaches
/// remote consumers whole; it never stops publishing. With a real nats-server and booksd.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSLargeChangeTests {
    @Test func aBulkAddOf10000BooksReachesRemoteSubscribersAsOneChangeSetAndLaterEditsFollow() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        let subscriber = try NATSRemoteSubscriber(url: server.url, directory: daemon.directory)
        let feed = try NATSFeed(options: NATSConnectOptions(urls: [server.url]))
        let received = FeedItems()
        let reader = Task {
            for try await item in feed.changes(from: .all) { received.items.withLock { $0.append(item) } }
        }
        defer { reader.cancel() }
        #expect(await eventually(timeout: 15, interval: 0.05) { received.changes.count == 0 && received.count == 1 })

        // About 130 bytes a book in the change line: 10,000 of them are well over 1 MiB.
        let drafts = (0..<10_000).map { "Bulk book number \($0) with a long title\tAuthor of bulk book \($0)" }
        let input = daemon.directory + "/bulk.tsv"
        try TestFiles.write(drafts.joined(separator: "\n") + "\n", to: input)
        let added = try await ChildProcess.run(
            ["sh", "-c", "'\(BuildProducts.booksctl)' --socket '\(daemon.socket)' add - < '\(input)'"], timeout: 60)
        #expect(added.succeeded, "\(added)")

        #expect(
            await eventually(timeout: 60, interval: 0.1) { received.changes.count == 1 },
            "the bulk change set did not reach NATSFeed\n\(daemon.log.suffix(2000))")
        let change = try #require(received.changes.first)
        #expect(change.changes.inserted.count == 10_000, "one change set with every insert")
        #expect(Set(change.changes.inserted.map(\.name)).count == 10_000)
        let view = try await NATSStreamView.read(url: server.url)
        #expect(view.messages.count > 2, "the change set went out in several messages")

        try daemon.handAppend("small|Dune|Herbert")
        #expect(
            await eventually(timeout: 30, interval: 0.05) { received.changes.count == 2 },
            "the small edit after it did not reach NATSFeed\n\(daemon.log.suffix(2000))")
        let after = try #require(received.changes.last)
        #expect(after.seq == change.seq + 1 && after.changes.inserted.map(\.id) == ["small"])

        #expect(
            await subscriber.waitForLines(10_001, timeout: 30),
            "booksctl --nats subscribe got \(subscriber.lines.count)")
        let lines = subscriber.lines
        #expect(lines.prefix(10_000).allSatisfy { $0.seq == change.seq && $0.kind == "insert" })
        #expect(lines.count == 10_001 && lines.last?.id == "small")
        #expect(!daemon.log.contains("Maximum Payload"), "\(daemon.log.suffix(2000))")
    }
}

/// What a `NATSFeed` delivered so far (filled by a reading task).
final class FeedItems: Sendable {
    let items = Locked<[NATSFeed.Item]>([])
    var count: Int { items.withLock { $0.count } }
    /// The change sets delivered, in order.
    var changes: [FeedChange] {
        items.withLock { items in
            items.compactMap { item in
                guard case .change(let change) = item.feedItem else { return nil }
                return change
            }
        }
    }
}

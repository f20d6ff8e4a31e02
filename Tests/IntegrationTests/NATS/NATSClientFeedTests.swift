import BooksClient
import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import Testing

/// The Swift client's feed over NATS (`NATSFeed.changes()`): the socket feed's items, in order,
/// none twice, across a nats-server restart; with a real nats-server and booksd.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSClientFeedTests {
    @Test func theFeedOverNATSCarriesEveryChangeOnceInOrderAcrossAServerRestart() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        let feed = try NATSFeed(options: NATSConnectOptions(urls: [server.url]))
        let client = try await daemon.connect()
        var items = feed.changes(from: .all).makeAsyncIterator()

        let marker = try #require(try await items.next())
        guard case .resyncRequired(let epoch, 0, _) = marker.feedItem else {
            Issue.record("the stream starts with booksd's snapshot marker, got \(marker.feedItem)")
            return
        }
        var changes: [FeedChange] = []
        var sequences = [marker.streamSequence]
        func take(_ count: Int) async throws {
            for _ in 0..<count {
                let item = try #require(try await items.next())
                sequences.append(item.streamSequence)
                guard case .change(let change) = item.feedItem else {
                    Issue.record("expected a change, got \(item.feedItem)")
                    return
                }
                #expect(item.store == "default")
                changes.append(change)
            }
        }
        try daemon.handAppend("1|Dune|Herbert")
        _ = try await client.insert([BookDraft(name: "Emma", author: "Austen")])
        try await take(2)

        server.kill()
        try daemon.handAppend("2|Walden|Thoreau")  // published once the server is back
        try server.start()
        _ = try await client.insert([BookDraft(name: "Ulysses", author: "Joyce")])
        try await take(2)

        #expect(changes.map(\.seq) == [1, 2, 3, 4], "every change set once, in order")
        #expect(changes.allSatisfy { $0.epoch == epoch })
        #expect(changes.map(\.source) == [.file, .client, .file, .client])
        #expect(changes[0].changes.inserted.map(\.id) == ["1"] && changes[2].changes.inserted.map(\.id) == ["2"])
        #expect(sequences == Array(sequences[0]..<(sequences[0] + 5)), "stream sequences without gap: \(sequences)")
        let fileIDs = Set(try daemon.fileBooks().map(\.id))
        let fedIDs = Set(changes.flatMap { $0.changes.inserted.map(\.id) })
        #expect(fedIDs == fileIDs)
    }

    @Test func endingTheIterationStopsTheFeed() async throws {
        let (server, _) = try await NATSFeedTests.publishingDaemon(rows: ["1|Dune|Herbert"])
        let feed = try NATSFeed(options: NATSConnectOptions(urls: [server.url]))
        let seen = Counter()
        let task = Task {
            for try await _ in feed.changes(from: .all) { seen.increment() }
        }
        // The snapshot marker comes first (on a loaded machine it may take seconds), then nothing.
        let marker = await eventually(timeout: 20, interval: 0.05) { seen.value >= 1 }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        try await task.value
        #expect(marker, "the snapshot marker arrives")
        #expect(seen.value == 1, "the snapshot marker, then nothing until cancelled")
    }

    /// Every item says how many messages of the stream were still to come after it (what a
    /// replica's `status` reports as "behind the owner by N").
    @Test func eachItemSaysHowManyMessagesWereStillToCome() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        let client = try await daemon.connect()
        for name in ["Emma", "Persuasion", "Sanditon"] {
            _ = try await client.insert([BookDraft(name: name, author: "Austen")])
        }
        let feed = try NATSFeed(options: NATSConnectOptions(urls: [server.url]))
        func read(_ count: Int) throws -> [NATSFeed.Item] {
            let items = Locked<[NATSFeed.Item]>([])
            let thread = try DedicatedThread.start(name: "test-feed") {
                feed.run(from: .all) { item in
                    items.withLock { $0.append(item) }
                    return items.withLock { $0.count } < count
                }
            }
            thread.join()
            return items.withLock { $0 }
        }
        _ = try read(4)  // the marker and three change sets are in the stream now
        let items = try read(4)
        #expect(items.map(\.pending) == [3, 2, 1, 0], "\(items.map(\.pending))")
    }
}

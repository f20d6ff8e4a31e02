import BooksClient
import BooksTestSupport
import Testing

/// `BooksClient.changes` against a real `booksd`: typed errors and the bounded buffer's policy.
@Suite("BooksClient feeds against booksd")
struct ClientFeedTests {
    /// Runs `body` with a daemon on a one-book file and a client connected to it, then stops both.
    static func withClient(_ name: String, _ body: (FeedDaemon, BooksClient) async throws -> Void) async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Frank Herbert"])
        defer { daemon.stop() }
        let client = try await daemon.connect(name)
        defer { client.close() }
        try await body(daemon, client)
    }

    @Test("a consumer that falls behind gets the buffered items, then .consumerTooSlow; the connection goes on")
    func slowConsumer() async throws {
        try await Self.withClient("slow") { daemon, client in
            let writer = try await daemon.connect("writer")
            defer { writer.close() }
            let feed = client.changes(buffer: .bounded(3))
            // Nobody iterates yet: the snapshot and the changes pile up in the buffer.
            #expect(await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) == 1 })
            for k in 1...5 { _ = try await writer.insert([BookDraft(name: "Book \(k)", author: "Writer")]) }
            // The buffer holds three items; the fourth overflows it, which unsubscribes the feed.
            guard await eventually(timeout: 15, { ((try? await writer.status().subscribers) ?? -1) == 0 }) else {
                Issue.record("the overflowing feed did not unsubscribe")
                return
            }
            var items: [FeedItem] = []
            var failure: BooksClientError?
            do throws(BooksClientError) {
                for try await item in feed { items.append(item) }
            } catch {
                failure = error
            }
            #expect(items.count == 3, "\(items)")
            guard case .snapshot(let snapshot) = items.first else {
                Issue.record("the feed did not start with a snapshot: \(items)")
                return
            }
            #expect(snapshot.books.count == 1)
            let seqs = items.dropFirst().map { item -> UInt64 in if case .change(let c) = item { c.seq } else { 0 } }
            #expect(seqs == [snapshot.seq + 1, snapshot.seq + 2], "the oldest changes are kept, in order")
            #expect(failure == .consumerTooSlow(limit: 3))
            // The connection still answers requests.
            #expect(try await client.list().total == 6)
        }
    }

    @Test("a second feed on one connection fails with .alreadySubscribed and leaves the first one running")
    func secondFeedOnOneConnection() async throws {
        try await Self.withClient("twice") { daemon, client in
            let first = FeedRecorder(client.changes())
            // By content, not count: a heartbeat may come in between on a loaded machine.
            await first.wait("the snapshot") { $0.contains { if case .snapshot = $0 { true } else { false } } }
            var second: BooksClientError?
            do throws(BooksClientError) {
                for try await _ in client.changes() {}
            } catch {
                second = error
            }
            #expect(second == .alreadySubscribed)
            _ = try await client.insert([BookDraft(name: "Emma", author: "Jane Austen")])
            await first.wait("the insert on the first feed") {
                $0.contains {
                    if case .change(let c) = $0 { c.changes.inserted.contains { $0.name == "Emma" } } else { false }
                }
            }
            first.cancel()
        }
    }
}

import BooksPlatform
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksClient

@Suite struct BooksFeedTests {
    /// Everything a feed delivers until it ends, and how it ended.
    func drain<T: Sendable>(_ feed: BooksFeed<T>) async -> (items: [T], error: BooksClientError?) {
        var items: [T] = []
        do throws(BooksClientError) {
            for try await item in feed { items.append(item) }
        } catch {
            return (items, error)
        }
        return (items, nil)
    }

    @Test func aBoundedFeedDeliversTheBufferThenReportsTheSlowConsumer() async {
        let (feed, producer) = BooksFeed<Int>.make(policy: .bounded(3))
        for i in 1...5 { producer.yield(i) }
        producer.finish(nil)
        let (items, error) = await drain(feed)
        #expect(items == [1, 2, 3])
        #expect(error == .consumerTooSlow(limit: 3))
    }

    @Test func aBoundedFeedWithinItsLimitLosesNothing() async {
        let (feed, producer) = BooksFeed<Int>.make(policy: .bounded(3))
        for i in 1...3 { producer.yield(i) }
        producer.finish(.connectionClosed)
        let (items, error) = await drain(feed)
        #expect(items == [1, 2, 3])
        #expect(error == .connectionClosed)
    }

    @Test func aLatestFeedKeepsOnlyTheNewestValue() async {
        let (feed, producer) = BooksFeed<Int>.make(policy: .latest)
        for i in 1...5 { producer.yield(i) }
        producer.finish(nil)
        let (items, error) = await drain(feed)
        #expect(items == [5])
        #expect(error == nil)
    }

    @Test func droppingTheFeedRunsTheConsumerGoneHandlerOnce() async throws {
        let count = Counter()
        let producer: BooksFeed<Int>.Producer
        do {
            let (feed, made) = BooksFeed<Int>.make(policy: .default) { count.increment() }
            producer = made
            made.yield(1)
            for try await _ in feed { break }
        }  // the feed is released here: its consumer is gone
        #expect(await eventually(timeout: 5) { count.value == 1 })
        producer.finish(nil)
        #expect(count.value == 1)
    }

    @Test func theConsumerGoneHandlerRunsOnOverflowButNotWhenTheProducerFinishes() async {
        let count = Counter()
        let (finished, finisher) = BooksFeed<Int>.make(policy: .bounded(1)) { count.increment() }
        finisher.yield(1)
        finisher.finish(.connectionClosed)
        #expect(await drain(finished).error == .connectionClosed)
        #expect(count.value == 0)
        let (overflowed, producer) = BooksFeed<Int>.make(policy: .bounded(1)) { count.increment() }
        producer.yield(1)
        producer.yield(2)
        #expect(count.value == 1)
        #expect(await drain(overflowed).error == .consumerTooSlow(limit: 1))
    }

    @Test func connectionStateTransitions() {
        let retry = Duration.milliseconds(400)
        #expect(LiveConnectionState.connecting.after(.subscribed(resumed: false)) == .live)
        #expect(
            LiveConnectionState.live.after(.disconnected(reason: "gone", retryIn: retry))
                == .reconnecting(reason: "gone", retryIn: retry))
        #expect(
            LiveConnectionState.reconnecting(reason: "x", retryIn: retry).after(.subscribed(resumed: true)) == .live)
        #expect(LiveConnectionState.live.after(.resyncRequired(reason: "trimmed")) == .live)
        #expect(LiveConnectionState.stopped.after(.subscribed(resumed: true)) == .stopped)
        #expect(LiveConnectionState.failed(.closed).after(.subscribed(resumed: true)) == .failed(.closed))
        #expect(
            LiveConnectionState.reconnecting(reason: "gone", retryIn: retry).description
                == "reconnecting in 400 ms: gone")
    }

    @Test func readableDescriptions() {
        let dune = Book(id: "b1", name: "Dune", author: "Frank Herbert")
        let emma = Book(id: "b2", name: "Emma\nor not", author: "Jane Austen")
        #expect(dune.description == #""Dune" by "Frank Herbert" [b1]"#)
        #expect(emma.description == #""Emma\nor not" by "Jane Austen" [b2]"#)
        let renamed = Book(id: "b1", name: "Dune Messiah", author: "Frank Herbert")
        let change = FeedChange(
            epoch: "E", seq: 7, source: .client, time: Date(timeIntervalSince1970: 1_767_225_600.25),
            changes: ChangeSet(inserted: [emma], updated: [BookUpdate(old: dune, new: renamed)]))
        #expect(
            FeedItem.change(change).description == """
                change 7 (client, 2026-01-01T00:00:00.250Z): 1 inserted, 1 updated, 0 deleted
                  + "Emma\\nor not" by "Jane Austen" [b2]
                  ~ [b1] "Dune" by "Frank Herbert" -> "Dune Messiah" by "Frank Herbert"
                """)
        let many = (1...25).map { Book(id: "id\($0)", name: "N\($0)", author: "A") }
        let snapshot = FeedItem.snapshot(FeedSnapshot(epoch: "E", seq: 3, books: many)).description
        #expect(snapshot.hasPrefix("snapshot at 3 (epoch E): 25 books\n  \"N1\" by \"A\" [id1]\n"))
        #expect(snapshot.hasSuffix("\n  … and 5 more"))
        #expect(snapshot.split(separator: "\n").count == 1 + ChangeSet.describedBookLimit + 1)
        #expect(FeedItem.heartbeat(ResumePoint(epoch: "E", seq: 9)).description == "heartbeat at 9 (epoch E)")
        #expect(VersionedBook(book: dune, version: 4).description == #""Dune" by "Frank Herbert" [b1] v4"#)
    }
}

import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import Synchronization

extension NATSFeed {
    /// The store's change feed as an `AsyncSequence`, the same items as the socket's
    /// `BooksClient.changes()` (`FeedItem`), each with its stream sequence.
    ///
    /// Guarantees: every message of the stream from `start` on, in stream order, none twice — also
    /// across lost connections and server restarts (the ordered consumer is re-created after the last
    /// stream sequence delivered). A change set is `.change`; a snapshot marker (booksd restarted, or
    /// its change log no longer reached back: change sets before it may be missing) is
    /// `.resyncRequired` naming the key-value bucket that holds the books at its seq. The stream never
    /// finishes on its own; ending the iteration (cancel, drop) stops the reading thread within about
    /// a quarter of a second. Reading happens on a dedicated thread,
    /// never in the cooperative pool. Items wait for the consumer per `buffer` (`FeedBufferPolicy`:
    /// by default at most 4,096, then the feed ends with `.consumerTooSlow`; resume from the last
    /// item's stream sequence). Iteration throws only `BooksClientError`: `.consumerTooSlow`, or
    /// `.nats` when no thread can be started.
    public func changes(from start: NATSDeliveryStart = .new, buffer: FeedBufferPolicy = .default) -> BooksFeed<Item> {
        let flag = CancelFlag()
        let (feed, producer) = BooksFeed<Item>.make(policy: buffer) { flag.cancel() }
        do {
            _ = try DedicatedThread.start(name: "books-nats-feed") { [self] in
                run(from: start, isCancelled: { flag.isCancelled }) { item in
                    producer.yield(item)
                    return !flag.isCancelled
                }
                producer.finish(nil)
            }
        } catch {
            producer.finish(.nats("cannot start the feed's thread: \(error)"))
        }
        return feed
    }
}

extension NATSFeed.Item {
    /// The item as the socket's feed has it: a change set is `.change`; a snapshot marker is
    /// `.resyncRequired` (the bucket `bucket` holds the books at its seq).
    public var feedItem: FeedItem {
        guard event.event == .snapshot else { return FeedItem(event) }
        return .resyncRequired(
            epoch: event.epoch, seq: event.seq,
            reason: "snapshot marker in the stream (booksd restarted or the stream fell behind): read the bucket")
    }
}

/// A cancellation flag shared by a stream's termination handler and its reading thread.
private final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isCancelled: Bool { value.load(ordering: .acquiring) }
    func cancel() { value.store(true, ordering: .releasing) }
}

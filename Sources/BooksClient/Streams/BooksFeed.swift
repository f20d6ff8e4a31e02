/// How many items of a `BooksFeed` may wait for its consumer, and what happens beyond.
public enum FeedBufferPolicy: Sendable, Hashable {
    /// At most `limit` items wait (limit ≥ 1); one more ends the feed with `.consumerTooSlow`.
    case bounded(Int)
    /// Only the newest item waits; older unread items are replaced.
    case latest

    /// The default for feeds of changes: 4,096 items.
    public static let `default` = FeedBufferPolicy.bounded(4096)
}

/// An asynchronous sequence of what the daemon pushes, whose iteration throws only
/// `BooksClientError` (`for try await item in feed` … `catch` binds a `BooksClientError`).
///
/// Every feed of the library is one: `BooksClient.changes`, `BooksClient.liveQuery`,
/// `ResilientSubscription.updates`. One consumer per feed (like `AsyncThrowingStream`, on which it
/// is built); ending the iteration (breaking out, cancelling the task) ends the feed.
///
/// **Buffering.** The producer (the connection's reader thread) never waits for the consumer, so
/// items that the consumer has not taken yet are buffered, within a bound set by `FeedBufferPolicy`:
/// - `.bounded(limit)` (feeds of changes, where every item matters): at most `limit` items wait;
///   the next one ends the feed: the consumer still gets the `limit` buffered items, then
///   `BooksClientError.consumerTooSlow(limit:)`. Nothing is skipped silently: a consumer that
///   gets the error knows the position of the last item it saw and can resume from it (or, with a
///   `ResilientSubscription`, start again).
/// - `.latest` (live query results, where each value replaces the previous one): only the newest
///   value waits; a slow consumer skips intermediate results and always gets the current one.
public struct BooksFeed<Element: Sendable>: AsyncSequence, Sendable {
    /// The only error iteration throws.
    public typealias Failure = BooksClientError

    private let base: AsyncThrowingStream<Element, any Error>

    /// Iterates a feed; `next()` throws only `BooksClientError`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The only error `next()` throws.
        public typealias Failure = BooksClientError
        var base: AsyncThrowingStream<Element, any Error>.Iterator

        /// The next item; nil once the feed has ended normally (or the task was cancelled).
        public mutating func next() async throws(BooksClientError) -> Element? {
            do { return try await base.next() } catch { throw BooksClientError.wrapping(error) }
        }

        /// The next item, on the caller's isolation (see `next()`).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(BooksClientError) -> Element? {
            do { return try await base.next(isolation: actor) } catch { throw BooksClientError.wrapping(error) }
        }
    }

    /// Starts an iteration (one per feed).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }

    /// A feed and the producer's end of it. `onConsumerGone` runs once if the consumer goes away
    /// (the iterating task is cancelled, or the feed is released) or falls behind a `.bounded`
    /// buffer — not when the producer finishes the feed itself.
    static func make(
        policy: FeedBufferPolicy,
        onConsumerGone: @escaping @Sendable () -> Void = {}
    ) -> (BooksFeed, Producer) {
        let buffering: AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy
        switch policy {
        case .bounded(let limit):
            precondition(limit > 0, "a feed's buffer limit must be positive")
            buffering = .bufferingOldest(limit)
        case .latest: buffering = .bufferingNewest(1)
        }
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(bufferingPolicy: buffering)
        continuation.onTermination = { termination in
            switch termination {
            case .cancelled: onConsumerGone()
            case .finished(let error):
                if case .consumerTooSlow? = error as? BooksClientError { onConsumerGone() }
            @unknown default: break
            }
        }
        return (BooksFeed(base: stream), Producer(continuation: continuation, policy: policy))
    }

    /// The producing end: `yield` each item, `finish` once.
    struct Producer: Sendable {
        let continuation: AsyncThrowingStream<Element, any Error>.Continuation
        let policy: FeedBufferPolicy

        /// Buffers `item`; on overflow of a `.bounded` buffer, ends the feed with `.consumerTooSlow`.
        func yield(_ item: Element) {
            if case .dropped = continuation.yield(item), case .bounded(let limit) = policy {
                continuation.finish(throwing: BooksClientError.consumerTooSlow(limit: limit))
            }
        }

        /// Ends the feed, normally (nil) or with `error`, after the buffered items.
        func finish(_ error: BooksClientError?) {
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }
    }
}

extension BooksClientError {
    /// `error` itself when it is a `BooksClientError` (the only kind a feed's producer throws).
    static func wrapping(_ error: any Error) -> BooksClientError {
        error as? BooksClientError ?? .io(operation: "feed: \(error)", errno: 0)
    }
}

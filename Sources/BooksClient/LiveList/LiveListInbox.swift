import BooksPlatform

/// What the subscription's threads hand to a `LiveBookList` on its actor: the latest result, the
/// latest connection state, the end. Bounded by construction: newer values replace unread ones, and
/// the wake-up signal holds at most one pending wake-up, however slow the actor is.
final class LiveListInbox: Sendable {
    struct Pending: Sendable {
        var books: [Book]?
        var statuses: [SubscriptionStatus] = []
        var end: BooksClientError??
    }

    private let pending = Locked(Pending())
    private let signal: AsyncStream<Void>.Continuation
    /// Yields once per batch of posts (a wake-up; the values are taken with `take()`).
    let wakeUps: AsyncStream<Void>

    init() {
        (wakeUps, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// A new result (replaces an unread one).
    func post(books: [Book]) {
        pending.withLock { $0.books = books }
        signal.yield()
    }

    /// A connection event. Only the last few matter: at most 8 are kept.
    func post(status: SubscriptionStatus) {
        pending.withLock {
            $0.statuses.append(status)
            if $0.statuses.count > 8 { $0.statuses.removeFirst($0.statuses.count - 8) }
        }
        signal.yield()
    }

    /// The end of the subscription (nil: stopped).
    func post(end error: BooksClientError?) {
        pending.withLock { $0.end = .some(error) }
        signal.yield()
        signal.finish()
    }

    /// Takes everything posted since the last call.
    func take() -> Pending {
        pending.withLock { value in
            defer { value = Pending() }
            return value
        }
    }
}

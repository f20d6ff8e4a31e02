import BooksCore

/// What a subscriber follows: per store, a filter and the last seq it was offered.
///
/// Sequence numbers are per store, so each store has its own resume point; a broadcast of one
/// store never touches another's. The key `""` (`unnamed`) is the one store of a server that does
/// not name its stores (a version-1 daemon, or the tests' single-store delegates).
public struct StoreSubscriptions: Sendable, Hashable {
    /// The key of the store of a single-store server.
    public static let unnamed = ""

    /// One store's subscription.
    public struct Subscription: Sendable, Hashable {
        /// Which books of the store.
        public var filter: BookFilter
        /// The last seq offered (initial events cover up to here).
        public var afterSeq: UInt64

        /// Creates a subscription.
        public init(filter: BookFilter, afterSeq: UInt64) {
            self.filter = filter
            self.afterSeq = afterSeq
        }
    }

    /// The subscriptions by store name.
    public private(set) var byStore: [String: Subscription]

    /// Creates the subscriptions `byStore`.
    public init(_ byStore: [String: Subscription] = [:]) {
        self.byStore = byStore
    }

    /// True when no store is followed.
    public var isEmpty: Bool { byStore.isEmpty }

    /// The stores followed, sorted.
    public var stores: [String] { byStore.keys.sorted() }

    /// Starts or replaces `store`'s subscription.
    public mutating func start(_ store: String, filter: BookFilter, afterSeq: UInt64) {
        byStore[store] = Subscription(filter: filter, afterSeq: afterSeq)
    }

    /// Ends `store`'s subscription; returns whether there was one.
    @discardableResult
    public mutating func stop(_ store: String) -> Bool {
        byStore.removeValue(forKey: store) != nil
    }

    /// `store`'s filter when a broadcast at `seq` is new for it, advancing its `afterSeq` to `seq`
    /// (each change is offered once); nil, changing nothing, otherwise.
    public mutating func accept(_ store: String, seq: UInt64) -> BookFilter? {
        guard let current = byStore[store], seq > current.afterSeq else { return nil }
        byStore[store]?.afterSeq = seq
        return current.filter
    }

    /// Whether a heartbeat of `store` at `seq` is for this subscriber: it follows the store and
    /// its initial events do not go beyond `seq`.
    public func acceptsHeartbeat(_ store: String, seq: UInt64) -> Bool {
        guard let current = byStore[store] else { return false }
        return seq >= current.afterSeq
    }
}

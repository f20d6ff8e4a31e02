import BooksCore

/// The state behind a live query: a mirror of the filter's books plus the last emitted result.
///
/// A pure value type fed `FeedItem`s. Guarantees: the first snapshot always produces a result (even
/// an empty one); afterwards a result is produced only when the query's output (books and order,
/// after sort, offset and limit) differs from the last one produced.
public struct LiveQueryState: Sendable, Hashable {
    /// The query evaluated on the mirror.
    public let query: BookQuery
    /// The mirror of every book matching `query.filter`.
    public private(set) var mirror: MirrorState
    /// The last result produced (nil before the first snapshot).
    public private(set) var current: [Book]?

    /// Creates the state for `query`.
    public init(query: BookQuery) {
        self.query = query
        self.mirror = MirrorState(filter: query.filter, emitInitialSnapshot: false)
    }

    /// Applies a feed item; returns the new result when it changed (or is the first), else nil.
    public mutating func apply(_ item: FeedItem) -> [Book]? {
        let wasSeeded = mirror.isSeeded
        let update = mirror.apply(item)
        guard mirror.isSeeded else { return nil }
        guard update != nil || !wasSeeded || current == nil else { return nil }
        let result = query.apply(to: mirror.books)
        if let current, current == result { return nil }
        current = result
        return result
    }
}

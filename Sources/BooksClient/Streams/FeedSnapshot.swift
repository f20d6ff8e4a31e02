import BooksCore

/// The books matching a subscription at one point of the daemon's history.
public struct FeedSnapshot: Sendable, Hashable {
    /// The lineage.
    public var epoch: String
    /// The sequence number the books are current at.
    public var seq: UInt64
    /// The matching books, in file order.
    public var books: [Book]

    /// Creates a snapshot.
    public init(epoch: String, seq: UInt64, books: [Book]) {
        self.epoch = epoch
        self.seq = seq
        self.books = books
    }
}

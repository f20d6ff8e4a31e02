import BooksCore

/// The result of `list`: one page of books and where the daemon stood when it answered.
public struct BookPage: Sendable, Hashable {
    /// The books of the page, in the query's order.
    public var books: [Book]
    /// How many books matched before `limit`/`offset`.
    public var total: Int
    /// The lineage at the time of the answer.
    public var epoch: String?
    /// The sequence number the page is current at.
    public var seq: UInt64

    /// Creates a page.
    public init(books: [Book], total: Int, epoch: String?, seq: UInt64) {
        self.books = books
        self.total = total
        self.epoch = epoch
        self.seq = seq
    }
}

import BooksCore
import BooksProtocol

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

    /// The page a `list` reply holds: its books, and `total` the number of books when the reply
    /// does not say.
    init(_ result: ReplyResult) {
        let books = result.books ?? []
        self.init(books: books, total: result.total ?? books.count, epoch: result.epoch, seq: result.seq ?? 0)
    }
}

import BooksCore
import BooksProtocol

extension NATSBooksClient {
    /// The first page asks for this many books; pages then double while they fit.
    static let firstPageBooks = 1024
    /// No page asks for more books than this.
    static let largestPageBooks = 65_536

    /// The books matching `query`, in pages of requests that each fit the NATS server's
    /// `max_payload` (a reply too large for one message is asked again with half the books), handed
    /// to `onPage` in order; returns `total` and the position with no books.
    ///
    /// Each page is its own request (`limit`/`offset`), so booksd holds at most one page per
    /// request. The pages are read from successive states: when the store changed between two of
    /// them (another `seq`), books may have moved between pages, and the listing stops with a
    /// `.protocolError` (`conflict`) rather than miss or repeat one silently: list again.
    public func list(
        _ query: BookQuery, onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        var pageBooks = Self.firstPageBooks
        var tooLarge = Int.max  // the smallest page size a reply was too large for
        var offset = max(query.offset, 0)
        var remaining = query.limit.map { max($0, 0) }
        var first: BookPage?
        while true {
            var asked = query
            asked.offset = offset
            asked.limit = min(remaining ?? Int.max, pageBooks)
            let page: BookPage
            do {
                page = try await list(asked)
            } catch {
                guard case .daemon(let refusal) = error, refusal.code == .tooLarge, pageBooks > 1 else { throw error }
                tooLarge = min(tooLarge, pageBooks)
                pageBooks /= 2
                continue
            }
            if let first, first.epoch != page.epoch || first.seq != page.seq {
                throw .protocolError(
                    ProtocolError(
                        .conflict,
                        "the store changed while its books were read in pages over NATS (seq \(first.seq) → "
                            + "\(page.seq)); the books printed may miss or repeat some: list again"))
            }
            if first == nil { first = page }
            onPage(page.books)
            offset += page.books.count
            remaining = remaining.map { $0 - page.books.count }
            if page.books.count < asked.limit ?? 0 || remaining == 0 || offset >= page.total || page.books.isEmpty {
                return BookPage(books: [], total: page.total, epoch: page.epoch, seq: page.seq)
            }
            if pageBooks * 2 < tooLarge { pageBooks = min(pageBooks * 2, Self.largestPageBooks) }
        }
    }
}

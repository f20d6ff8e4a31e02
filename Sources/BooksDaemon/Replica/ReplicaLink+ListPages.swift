import BooksCore
import BooksProtocol

/// A replica's `list`/`query` with `at` whose answer does not fit one NATS message: asked of the
/// owner in pages, streamed to the client as one reply.
extension ReplicaLink {
    /// How the owner's answer reaches the replica's client.
    enum ForwardedAnswer: Sendable {
        /// One reply, as the owner gave it.
        case reply(Reply)
        /// The books of a paged list, streamed like a local list reply.
        case stream(BookStreamEncoder)
    }

    /// The first page asks for this many books; pages then double while they fit.
    static let firstListPage = 1024
    /// No page asks for more books than this.
    static let largestListPage = 65_536

    /// Whether `request` is a list at a point (see `listInPages`).
    static func listsAt(_ request: Request) -> Bool {
        (request.op == .list || request.op == .query) && request.at != nil
    }

    /// The owner's list of `request` (a list at a point, already refused as `too-large` for one
    /// NATS message) read in pages of `limit`/`offset` that each fit one: the first at the point
    /// asked for, the others at the `epoch:seq` it showed (the same state, whatever the owner
    /// writes meanwhile), a page too large asked again with half the books. The books are
    /// streamed to the client as one reply (lines of pages when it asked for `paged`), with the
    /// owner's `total`, `epoch` and `seq`. Any page's failure is the answer (`not-found` when the
    /// point was trimmed from the owner's history meanwhile; one book larger than a message stays
    /// `too-large`).
    func listInPages(_ request: Request, actor: ChangeActor) -> ForwardedAnswer {
        var page = request
        var size = Self.firstListPage
        var smallestTooLarge = Int.max
        var offset = max(request.offset ?? 0, 0)
        var wanted = request.limit.map { max($0, 0) }
        var books: [Book] = []
        var shown: (epoch: String, seq: UInt64, total: Int)?
        repeat {
            page.offset = offset
            page.limit = min(wanted ?? Int.max, size)
            let reply = forwardNow(page, actor: actor)
            if reply.error?.code == .tooLarge, size > 1 {
                smallestTooLarge = min(smallestTooLarge, size)
                size /= 2
                continue
            }
            guard reply.ok, let result = reply.result, let epoch = result.epoch, let seq = result.seq else {
                return .reply(reply)
            }
            if shown == nil { page.at = HistoryBound(epoch: epoch, seq: seq) }
            shown = (epoch, seq, result.total ?? 0)
            let got = result.books ?? []
            books += got
            offset += got.count
            wanted = wanted.map { $0 - got.count }
            if got.count < page.limit ?? 0 || got.isEmpty || wanted == 0 || offset >= shown?.total ?? 0 { break }
            if size * 2 < smallestTooLarge { size = min(size * 2, Self.largestListPage) }
        } while true
        let (epoch, seq, total) = shown ?? ("", 0, 0)
        return .stream(
            BookStreamEncoder(
                .listReply(id: request.id), epoch: epoch, seq: seq, cursor: BookCursor(selected: books, total: total),
                framing: request.paged == true ? .pages : .singleLine))
    }
}

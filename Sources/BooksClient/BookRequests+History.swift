import BooksCore
import BooksProtocol

/// The history kept by the daemon (protocol version 2): change sets, each book's last change,
/// the list as it was, and undoing change sets.
extension BookRequests {
    /// The change sets kept within `since` (after a seq, or at or after a time) and `until` (up
    /// to and including), touching one of `ids` (nil: any) and with a book `filter` matches, the
    /// newest `limit` of them (the daemon sends at most 1000 a reply), oldest first.
    ///
    /// - Returns: the change sets as `change` events (seq, epoch, time, source, actor, books),
    ///   whether older ones match too (`more`: ask again with `until` below the first), and the
    ///   oldest seq kept.
    /// - Throws: `.daemon` with `invalid-argument` for a cursor of another lineage.
    public func history(
        since: HistoryPoint? = nil, until: HistoryPoint? = nil, ids: [String]? = nil, filter: BookFilter = .all,
        limit: Int? = nil
    ) async throws(BooksClientError) -> HistoryReply {
        let result = try await call(.log) {
            $0.since = since.map(HistoryBound.init)
            $0.until = until.map(HistoryBound.init)
            $0.ids = ids
            $0.filter = filter.isEmpty ? nil : filter
            $0.limit = limit
        }
        return HistoryReply(result)
    }

    /// Change set `seq` in full.
    ///
    /// - Throws: `.daemon` with `not-found` when it is not (or no longer) in the history kept.
    public func changeSet(_ seq: UInt64) async throws(BooksClientError) -> Event? {
        try await call(.show) { $0.seqs = [seq] }.history?.first
    }

    /// Each book's last change (its seq, time, source and actor while that change set is kept);
    /// no ids: every book a kept change set touched, newest first.
    public func blame(_ ids: [String] = []) async throws(BooksClientError) -> [BlameEntry] {
        try await call(.blame) { $0.ids = ids.isEmpty ? nil : ids }.blame ?? []
    }

    /// The books matching `query` as they were at `point` (a seq: after that change set; a time:
    /// after the last change set applied by then), with the seq they are the state of.
    ///
    /// - Throws: `.daemon` with `not-found` when that is older than the history kept.
    public func books(
        at point: HistoryPoint, _ query: BookQuery = BookQuery()
    ) async throws(BooksClientError)
        -> BookPage
    {
        BookPage(
            try await call(.list) {
                $0.at = HistoryBound(point)
                $0.setQuery(query)
            })
    }

    /// Undoes change sets `seqs` as one new change set (source `undo`): each book they touched
    /// goes back to its state before the oldest of them. A book changed again since by another
    /// change set is left alone and returned in `refused` — unless `force`.
    ///
    /// - Returns: the books written and those left alone.
    /// - Throws: `.daemon` with `conflict` when every book was refused, `not-found` for a seq
    ///   not in the history kept, `permission-denied` for a peer that may not write.
    @discardableResult
    public func undo(_ seqs: [UInt64], force: Bool = false) async throws(BooksClientError) -> UndoReply {
        let result = try await call(.undo) {
            $0.seqs = seqs
            $0.force = force ? true : nil
        }
        return UndoReply(written: result.books ?? [], refused: result.refused ?? [], seq: result.seq ?? 0)
    }
}

/// One answer of `BookRequests/history(since:until:ids:filter:limit:)`.
public struct HistoryReply: Sendable, Hashable {
    /// The change sets, oldest first.
    public var changes: [Event]
    /// True when older change sets match too.
    public var more: Bool
    /// The seq of the oldest change set kept (0: none is).
    public var oldestSeq: UInt64
    /// The store's lineage and current seq.
    public var epoch: String?
    public var seq: UInt64

    init(_ result: ReplyResult) {
        changes = result.history ?? []
        more = result.more ?? false
        oldestSeq = result.oldestSeq ?? 0
        epoch = result.epoch
        seq = result.seq ?? 0
    }
}

/// What `BookRequests/undo(_:force:)` did.
public struct UndoReply: Sendable, Hashable {
    /// The books put back or changed back (a removed book is not listed).
    public var written: [Book]
    /// The books left alone (changed again since), with their current values.
    public var refused: [BookConflict]
    /// The store's seq after the undo.
    public var seq: UInt64
}

extension BooksClient {
    /// `BookRequests/books(at:_:)` a page at a time, as `list(_:onPage:)` streams the list
    /// of now; returns `total` and the seq shown, with no books (they all went to `onPage`).
    public func books(
        at point: HistoryPoint, _ query: BookQuery = BookQuery(), onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        try await list(query, store: nil, at: point, onPage: onPage)
    }
}

extension StoreClient {
    /// `BooksClient/books(at:_:onPage:)` of this store.
    public func books(
        at point: HistoryPoint, _ query: BookQuery = BookQuery(), onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        try await client.list(query, store: store, at: point, onPage: onPage)
    }
}

import BooksCore

/// One request line from a client: `{"id": "…", "op": "…", …}`.
///
/// Every request gets exactly one `Reply` with the same `id`. Fields not used by an op are absent.
public struct Request: Sendable, Hashable, Codable {
    /// Client-chosen identifier echoed in the reply (any string; numbers are accepted and kept as text).
    public var id: String
    /// The operation.
    public var op: Operation
    /// `hello`: the protocol version the client speaks.
    public var version: Int?
    /// `hello`: a free-form client name for logs and status.
    public var client: String?
    /// `list`/`query`/`subscribe`: which books.
    public var filter: BookFilter?
    /// `list`/`query`: the order.
    public var sort: BookSort?
    /// `list`/`query`: paging.
    public var limit: Int?
    /// `list`/`query`: paging.
    public var offset: Int?
    /// `subscribe`: resume after this point instead of starting with a snapshot.
    public var resume: ResumePoint?
    /// `get`/`delete`: the book ids.
    public var ids: [String]?
    /// `insert`: the new books (an `id` may be given; otherwise the daemon assigns a UUID).
    public var books: [BookDraft]?
    /// `update`: the changes.
    public var patches: [BookPatch]?
    /// `delete`: the expected versions, parallel to `ids` (optional).
    public var expectedVersions: [UInt64]?
    /// `list`/`query`/`subscribe`: send the books (of the list, or of a snapshot) as a sequence of
    /// lines marked `"more":true` but the last, instead of one line.
    public var paged: Bool?
    /// `subscribe`: `false` starts the feed without a snapshot (and sends none after
    /// `resync-required`): a plain feed of changes. Default `true`.
    public var snapshot: Bool?
    /// `save`: the books to insert, each with a temporary id.
    public var inserted: [BookInsertion]?
    /// `save`: the books to change (as in `update`).
    public var updated: [BookPatch]?
    /// `save`: the books to delete.
    public var deleted: [BookDeletion]?
    /// Version 2: the store a per-store op (`list`, `query`, `get`, `insert`, `update`, `delete`,
    /// `status`, `ping`, `subscribe`, `unsubscribe`) is about. Absent: the only store (a version-1
    /// connection: the store `default`, or the only one).
    public var store: String?
    /// Version 2, `subscribe`/`unsubscribe`: several stores at once; `["*"]` is every store, also
    /// those added later.
    public var stores: [String]?
    /// Version 2, `subscribe` with `stores`: a resume point per store (stores not named here start
    /// with a snapshot, or without one when `snapshot` is `false`).
    public var resumes: [String: ResumePoint]?
    /// Version 2, `resolve`: the number of the conflict to settle (as `conflicts` lists it).
    public var conflict: Int?
    /// Version 2, `resolve`: which side to take (`mine`: the value in the file stands; `theirs`:
    /// the other side's value is written).
    public var take: ConflictSide?
    /// Version 2, `log`: only change sets after this bound (a seq: after it; a time: at or
    /// after it); `subscribe`: a time to resume from (the first change set at or after it).
    public var since: HistoryBound?
    /// Version 2, `log`: only change sets up to this bound (inclusive).
    public var until: HistoryBound?
    /// Version 2, `list`/`query`: the list as it was at this point (a seq: after that change set;
    /// a time: after the last change set applied at or before it).
    public var at: HistoryBound?
    /// Version 2, `show`: the change set (one seq); `undo`: the change sets to undo together.
    public var seqs: [UInt64]?
    /// Version 2, `undo`: take back books changed again since, too.
    public var force: Bool?
    /// `subscribe`: also send `conflict` events (a merged save's conflicts as they are recorded
    /// and settled) for the stores followed. Opt-in: older clients never see them.
    public var conflicts: Bool?
    /// `save`: the version the client read (its epoch and seq), to merge the save onto: the
    /// daemon rebuilds the books as of that seq from its history and merges each book the save
    /// names three ways with what it holds now (``Request/Operation/save``). Absent: the save is
    /// applied as sent, conditional only on its `expectedVersion`s.
    public var base: ResumePoint?

    /// Creates a request.
    public init(
        id: String, op: Operation, version: Int? = nil, client: String? = nil,
        filter: BookFilter? = nil, sort: BookSort? = nil, limit: Int? = nil, offset: Int? = nil,
        resume: ResumePoint? = nil, ids: [String]? = nil, books: [BookDraft]? = nil,
        patches: [BookPatch]? = nil, expectedVersions: [UInt64]? = nil, paged: Bool? = nil,
        snapshot: Bool? = nil, inserted: [BookInsertion]? = nil, updated: [BookPatch]? = nil,
        deleted: [BookDeletion]? = nil, store: String? = nil, stores: [String]? = nil,
        resumes: [String: ResumePoint]? = nil, conflict: Int? = nil, take: ConflictSide? = nil,
        since: HistoryBound? = nil, until: HistoryBound? = nil, at: HistoryBound? = nil, seqs: [UInt64]? = nil,
        force: Bool? = nil
    ) {
        self.id = id
        self.op = op
        self.version = version
        self.client = client
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.resume = resume
        self.ids = ids
        self.books = books
        self.patches = patches
        self.expectedVersions = expectedVersions
        self.paged = paged
        self.snapshot = snapshot
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.store = store
        self.stores = stores
        self.resumes = resumes
        self.conflict = conflict
        self.take = take
        self.since = since
        self.until = until
        self.at = at
        self.seqs = seqs
        self.force = force
    }

    /// The JSON keys of a request.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, op, version, client, filter, sort, limit, offset, resume, ids, books, patches, expectedVersions, paged
        case snapshot, store, stores, resumes
        case inserted, updated, deleted
        case conflict, take
        case since, until, at, seqs, force
        case conflicts
        case base
    }

    /// Decodes a request; `id` may be a JSON string or a JSON number (kept as its decimal text,
    /// e.g. `7` → `"7"`). Every other field has the synthesized shape. Throws `DecodingError` on
    /// a missing `id`/`op`, a wrong type, or an unknown `op`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try Request.decodeID(c)
        self.op = try c.decode(Operation.self, forKey: .op)
        self.version = try c.decodeIfPresent(Int.self, forKey: .version)
        self.client = try c.decodeIfPresent(String.self, forKey: .client)
        self.filter = try c.decodeIfPresent(BookFilter.self, forKey: .filter)
        self.sort = try c.decodeIfPresent(BookSort.self, forKey: .sort)
        self.limit = try c.decodeIfPresent(Int.self, forKey: .limit)
        self.offset = try c.decodeIfPresent(Int.self, forKey: .offset)
        self.resume = try c.decodeIfPresent(ResumePoint.self, forKey: .resume)
        self.ids = try c.decodeIfPresent([String].self, forKey: .ids)
        self.books = try c.decodeIfPresent([BookDraft].self, forKey: .books)
        self.patches = try c.decodeIfPresent([BookPatch].self, forKey: .patches)
        self.expectedVersions = try c.decodeIfPresent([UInt64].self, forKey: .expectedVersions)
        self.paged = try c.decodeIfPresent(Bool.self, forKey: .paged)
        self.snapshot = try c.decodeIfPresent(Bool.self, forKey: .snapshot)
        self.inserted = try c.decodeIfPresent([BookInsertion].self, forKey: .inserted)
        self.updated = try c.decodeIfPresent([BookPatch].self, forKey: .updated)
        self.deleted = try c.decodeIfPresent([BookDeletion].self, forKey: .deleted)
        self.store = try c.decodeIfPresent(String.self, forKey: .store)
        self.stores = try c.decodeIfPresent([String].self, forKey: .stores)
        self.resumes = try c.decodeIfPresent([String: ResumePoint].self, forKey: .resumes)
        self.conflict = try c.decodeIfPresent(Int.self, forKey: .conflict)
        self.take = try c.decodeIfPresent(ConflictSide.self, forKey: .take)
        self.since = try c.decodeIfPresent(HistoryBound.self, forKey: .since)
        self.until = try c.decodeIfPresent(HistoryBound.self, forKey: .until)
        self.at = try c.decodeIfPresent(HistoryBound.self, forKey: .at)
        self.seqs = try c.decodeIfPresent([UInt64].self, forKey: .seqs)
        self.force = try c.decodeIfPresent(Bool.self, forKey: .force)
        self.conflicts = try c.decodeIfPresent(Bool.self, forKey: .conflicts)
        self.base = try c.decodeIfPresent(ResumePoint.self, forKey: .base)
    }

    /// Reads `id` as a string, or as a number converted to text.
    static func decodeID(_ c: KeyedDecodingContainer<CodingKeys>) throws -> String {
        if let text = try? c.decode(String.self, forKey: .id) { return text }
        if let n = try? c.decode(Int64.self, forKey: .id) { return String(n) }
        if let n = try? c.decode(UInt64.self, forKey: .id) { return String(n) }
        if let d = try? c.decode(Double.self, forKey: .id), d.isFinite { return String(d) }
        guard c.contains(.id) else {
            throw DecodingError.keyNotFound(
                CodingKeys.id,
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "missing id"))
        }
        throw DecodingError.typeMismatch(
            String.self,
            .init(
                codingPath: c.codingPath + [CodingKeys.id],
                debugDescription: "id must be a string or a number"))
    }

    /// The operations of protocol versions 1 and 2 (`stores` is version 2 only).
    public enum Operation: String, Sendable, Hashable, Codable, CaseIterable {
        /// Must be the first request: `version` → `HelloResult`.
        case hello
        /// Liveness check → `PingResult`.
        case ping
        /// Daemon state → `StatusResult`.
        case status
        /// Books matching `filter`, `sort`, `limit`, `offset` → `BooksResult`. `query` is the same op.
        case list, query
        /// Books by `ids` → `BooksResult` (unknown ids: `not-found` error).
        case get
        /// Adds `books` atomically → `WriteResult`.
        case insert
        /// Applies `patches` atomically → `WriteResult`.
        case update
        /// Deletes `ids` atomically → `WriteResult`.
        case delete
        /// Starts the change feed → `SubscribeResult`, then `Event` lines.
        case subscribe
        /// Stops the change feed on this connection → `PingResult`.
        case unsubscribe
        /// Applies `inserted`, `updated` and `deleted` all or nothing in one durable write →
        /// `WriteResult` with `remap` (temporary to permanent ids). With `base`, each book
        /// `updated` (the base's values with the patch's fields) or `deleted` is merged field by
        /// field with the changes others made since the base (the saver's value stands on a
        /// same-field conflict, which is recorded as `conflicts` lists it); `expectedVersion`s are
        /// then not checked, and the result also has `merged` and `conflicts`.
        case save
        /// Version 2: every store with its path, format, state and position → `ReplyResult.stores`.
        case stores
        /// Version 2: the store's unsettled conflicts of merged saves → `ReplyResult.conflicts`.
        case conflicts
        /// Version 2: settles conflict `conflict` by taking side `take` → `WriteResult` (`theirs`
        /// writes the other value as a new change set; `mine` only drops the conflict).
        case resolve
        /// Version 2: the history kept: change sets within `since`/`until`, touching `ids` or
        /// matching `filter`, the newest `limit` (at most 1000) → `ReplyResult.history`, oldest
        /// first, `more` when older ones match too.
        case log
        /// Version 2: one change set (`seqs`, one seq) → `ReplyResult.history`.
        case show
        /// Version 2: each book's last change (`ids`; none: every book) → `ReplyResult.blame`.
        case blame
        /// Version 2: undoes the change sets `seqs` as one new change set (source `undo`) →
        /// `WriteResult`, with `refused` for books changed again since (unless `force`).
        case undo
    }

    /// True for the ops that act on one store (everything but `hello` and `stores`; `subscribe` and
    /// `unsubscribe` may name several with `stores`).
    public var isPerStore: Bool { op != .hello && op != .stores }
}

/// A book to insert: `id` is optional (the daemon assigns a UUID when absent).
public struct BookDraft: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String
    public var author: String

    /// Creates a draft.
    public init(id: String? = nil, name: String, author: String) {
        self.id = id
        self.name = name
        self.author = author
    }
}

/// A change to an existing book: absent fields keep their values. With `expectedVersion`, the
/// write fails with `conflict` unless the book's current version is exactly that.
public struct BookPatch: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    public var author: String?
    public var expectedVersion: UInt64?

    /// Creates a patch.
    public init(id: String, name: String? = nil, author: String? = nil, expectedVersion: UInt64? = nil) {
        self.id = id
        self.name = name
        self.author = author
        self.expectedVersion = expectedVersion
    }
}

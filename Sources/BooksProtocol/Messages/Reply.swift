import BooksCore

/// The one reply to a request: `{"id": "…", "ok": true, "result": {…}}` or
/// `{"id": "…", "ok": false, "error": {"code": "…", "message": "…"}}`.
///
/// A reply to a line that could not be parsed at all carries `id: null`.
public struct Reply: Sendable, Hashable, Codable {
    /// The request's id, or nil when the request was unreadable.
    public var id: String?
    /// True on success.
    public var ok: Bool
    /// The result on success.
    public var result: ReplyResult?
    /// The error on failure.
    public var error: ProtocolError?

    /// A successful reply.
    public static func success(_ id: String, _ result: ReplyResult) -> Reply {
        Reply(id: id, ok: true, result: result, error: nil)
    }

    /// A failed reply.
    public static func failure(_ id: String?, _ error: ProtocolError) -> Reply {
        Reply(id: id, ok: false, result: nil, error: error)
    }

    /// Creates a reply.
    public init(id: String?, ok: Bool, result: ReplyResult?, error: ProtocolError?) {
        self.id = id
        self.ok = ok
        self.result = result
        self.error = error
    }
}

/// The union of all success results; exactly the fields of the request's op are present.
public struct ReplyResult: Sendable, Hashable, Codable {
    /// `hello`: the protocol version the daemon speaks.
    public var protocolVersion: Int?
    /// `hello`: the daemon's name and version, e.g. `booksd 1.0`.
    public var server: String?
    /// Current lineage (hello, ping, status, list, subscribe, writes).
    public var epoch: String?
    /// Current sequence number (hello, ping, status, list, subscribe, writes).
    public var seq: UInt64?
    /// `list`/`query`/`get`: the books; writes: the books as written (inserted with their ids).
    public var books: [Book]?
    /// `get`: each book's version (the seq of the change that last touched it), parallel to `books`.
    public var versions: [UInt64]?
    /// `list`/`query`: how many books matched before `limit`/`offset`.
    public var total: Int?
    /// `status`: the daemon's state.
    public var status: DaemonStatus?
    /// A paged `list` (`"paged":true`): `true` on every page but the last, which carries `total`.
    public var more: Bool?
    /// `save`: the permanent id of each inserted book, keyed by its temporary id.
    public var remap: [String: String]?
    /// Version 2, `stores`: every store, sorted by name.
    public var stores: [StoreInfo]?
    /// Version 2, `subscribe`/`unsubscribe` with `stores`: the stores the request applies to, sorted.
    public var subscribedStores: [String]?
    /// Version 2, `conflicts`: the store's unsettled conflicts, oldest first; a `save` with
    /// `base`: the conflicts it recorded (absent when none).
    public var conflicts: [RecordedConflict]?
    /// A `save` with `base`: the ids of the books written with others' changes merged in (what
    /// was written differs from what the save sent), sorted; empty when none.
    public var merged: [String]?
    /// Version 2, `log`/`show`: the change sets, oldest first, as `change` events.
    public var history: [Event]?
    /// Version 2, `log`/`show`/`blame`/`status`: the seq of the oldest change set kept (0: none is).
    public var oldestSeq: UInt64?
    /// Version 2, `blame`: each book's last change.
    public var blame: [BlameEntry]?
    /// Version 2, `undo`: the books left alone (changed again since), with their current values.
    public var refused: [BookConflict]?

    /// Creates a result with only the given fields.
    public init(
        protocolVersion: Int? = nil, server: String? = nil, epoch: String? = nil, seq: UInt64? = nil,
        books: [Book]? = nil, versions: [UInt64]? = nil, total: Int? = nil, status: DaemonStatus? = nil,
        more: Bool? = nil, remap: [String: String]? = nil, stores: [StoreInfo]? = nil,
        subscribedStores: [String]? = nil, conflicts: [RecordedConflict]? = nil, history: [Event]? = nil,
        oldestSeq: UInt64? = nil, blame: [BlameEntry]? = nil, refused: [BookConflict]? = nil,
        merged: [String]? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.server = server
        self.epoch = epoch
        self.seq = seq
        self.books = books
        self.versions = versions
        self.total = total
        self.status = status
        self.more = more
        self.remap = remap
        self.stores = stores
        self.subscribedStores = subscribedStores
        self.conflicts = conflicts
        self.history = history
        self.oldestSeq = oldestSeq
        self.blame = blame
        self.refused = refused
        self.merged = merged
    }
}

/// A machine-readable error code and a human message. `current` carries the book's current values
/// and version on `conflict`.
public struct ProtocolError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// On `conflict`: the current values of the book (absent if it was deleted).
    public var current: Book?
    /// On `conflict`: the book's current version.
    public var currentVersion: UInt64?
    /// On a `save`'s `conflict`: every conflicting book, with its current values.
    public var conflicts: [BookConflict]?
    /// On `unknown-store` and `store-required`: the names of the stores there are, sorted; at
    /// most 20 of them (those nearest to the name asked) when there are more.
    public var stores: [String]?

    /// Creates an error.
    public init(
        _ code: ErrorCode, _ message: String, current: Book? = nil, currentVersion: UInt64? = nil,
        conflicts: [BookConflict]? = nil, stores: [String]? = nil
    ) {
        self.code = code
        self.message = message
        self.current = current
        self.currentVersion = currentVersion
        self.conflicts = conflicts
        self.stores = stores
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Stable error codes. Codes marked "disconnects" are protocol violations after which the
    /// daemon closes the connection.
    public enum ErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
        /// The line is not valid JSON, or a field has the wrong type (disconnects).
        case badRequest = "bad-request"
        /// The line is not valid UTF-8 (disconnects).
        case invalidUTF8 = "invalid-utf8"
        /// The JSON nests deeper than the daemon accepts (disconnects).
        case tooDeep = "too-deep"
        /// The request line is longer than the limit (disconnects).
        case tooLarge = "too-large"
        /// `op` is not known in this protocol version.
        case unknownOp = "unknown-op"
        /// The first request was not `hello`, or its version is not supported (disconnects).
        case helloRequired = "hello-required"
        case unsupportedVersion = "unsupported-version"
        /// A field is missing or invalid for this op (e.g. empty name).
        case invalidArgument = "invalid-argument"
        /// A book id does not exist.
        case notFound = "not-found"
        /// `expectedVersion` does not match the book's current version.
        case conflict
        /// The peer's uid/groups may not write.
        case permissionDenied = "permission-denied"
        /// Too many clients, or another limit (disconnects when at accept).
        case limitExceeded = "limit-exceeded"
        /// A `list`, `query` or `subscribe` filter (or sort) ran past the daemon's time budget
        /// (`query_budget_ms`) and was stopped; the connection stays open. Retrying the same
        /// request will fail the same way.
        case queryTooExpensive = "query-too-expensive"
        /// The book file cannot be written now (missing, unreadable, invalid JSON, disk full …).
        case storeUnavailable = "store-unavailable"
        /// Version 2: no store has the name given in `store` or `stores` (`stores` lists those
        /// there are). The connection stays open.
        case unknownStore = "unknown-store"
        /// Version 2: the daemon serves several stores and the request names none (`stores` lists
        /// them). The connection stays open.
        case storeRequired = "store-required"
        /// The daemon is shutting down.
        case shuttingDown = "shutting-down"
        /// A `save`'s `base` cannot be merged onto: it is older than the history kept, of another
        /// epoch, or after the current seq. Nothing was written; read again and save with the new
        /// base.
        case baseNotKept = "base-not-kept"
        /// An unexpected failure inside the daemon.
        case internalError = "internal"
    }
}

/// One store as the `stores` op lists it (protocol version 2).
///
/// A store is a named book file; its sequence numbers and epoch are its own.
public struct StoreInfo: Sendable, Hashable, Codable {
    /// The store's name (`default` for `--file`, the base name of a file in a watched folder).
    public var name: String
    /// The book file's path.
    public var path: String
    /// `text` or `json`.
    public var format: String
    /// `present`, `missing`, `unavailable` or `confirming` (as `DaemonStatus.fileState`).
    public var state: String
    /// A human explanation when `state` is not `present`.
    public var problem: String?
    /// The number of books.
    public var bookCount: Int
    /// The number of bad lines in the file as last read.
    public var badLines: Int
    /// The store's lineage.
    public var epoch: String
    /// The store's current sequence number.
    public var seq: UInt64
    /// The history kept (`log`, `show`, `list --at`, `undo`, resumes): its oldest change set's seq
    /// and the time it was applied (ISO 8601, UTC), as `DaemonStatus.historyOldestSeq` and
    /// `historyOldestTime`; both absent when none is kept (and from a daemon that does not say).
    public var historyOldestSeq: UInt64?
    public var historyOldestTime: String?

    /// Creates a store description.
    public init(
        name: String, path: String, format: String, state: String, problem: String? = nil, bookCount: Int,
        badLines: Int, epoch: String, seq: UInt64, historyOldestSeq: UInt64? = nil, historyOldestTime: String? = nil
    ) {
        self.name = name
        self.path = path
        self.format = format
        self.state = state
        self.problem = problem
        self.bookCount = bookCount
        self.badLines = badLines
        self.epoch = epoch
        self.seq = seq
        self.historyOldestSeq = historyOldestSeq
        self.historyOldestTime = historyOldestTime
    }
}

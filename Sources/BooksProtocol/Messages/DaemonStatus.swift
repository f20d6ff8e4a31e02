import BooksCore

/// What `status` reports.
public struct DaemonStatus: Sendable, Hashable, Codable {
    /// The book file's path.
    public var file: String
    /// `text` or `json`.
    public var format: String
    /// `present`, `missing`, `unavailable` (unreadable, JSON that does not decode, not a regular
    /// file …; see `fileProblem`) or `confirming` (a destructive-looking state is being confirmed).
    public var fileState: String
    /// A human explanation when `fileState` is not `present`.
    public var fileProblem: String?
    /// The number of books in the context.
    public var bookCount: Int
    /// Bad lines of the file as last read, with line numbers and reasons.
    public var badLines: [BadLine]
    /// Books kept at their last good values because their row turned into a bad line.
    public var heldBooks: [String]
    /// `inotify` or `polling`.
    public var watcherMode: String
    /// A warning about the watcher (network filesystem, watch lost …).
    public var watcherWarning: String?
    public var epoch: String
    public var seq: UInt64
    /// The oldest seq the change log can still replay from.
    public var oldestReplayableSeq: UInt64
    public var subscribers: Int
    public var clients: Int
    public var uptimeSeconds: Double
    /// When the last change set was applied (nil when none since start).
    public var lastChange: String?
    public var server: String
    /// Conflicts of saves from stale buffers that were merged, not settled yet (nil or empty:
    /// none): the saver's value is in the file, the other side here.
    public var conflicts: [RecordedConflict]?
    /// Recent file edits that stood as written and undid client writes made shortly before (the
    /// seqs of those writes), newest last; nil or empty: none.
    public var reverts: [UInt64]?
    /// The history kept (`booksctl log`): its oldest change set's seq and time, and its size in
    /// bytes; absent when none is kept.
    public var historyOldestSeq: UInt64?
    public var historyOldestTime: String?
    public var historyBytes: Int?
    /// For a replica of a store another booksd owns: how it stands (in sync, offline since …,
    /// edits queued); nil for a store this booksd owns.
    public var replica: String?

    public init(
        file: String, format: String, fileState: String, fileProblem: String?, bookCount: Int,
        badLines: [BadLine], heldBooks: [String], watcherMode: String, watcherWarning: String?,
        epoch: String, seq: UInt64, oldestReplayableSeq: UInt64, subscribers: Int, clients: Int,
        uptimeSeconds: Double, lastChange: String?, server: String
    ) {
        self.file = file
        self.format = format
        self.fileState = fileState
        self.fileProblem = fileProblem
        self.bookCount = bookCount
        self.badLines = badLines
        self.heldBooks = heldBooks
        self.watcherMode = watcherMode
        self.watcherWarning = watcherWarning
        self.epoch = epoch
        self.seq = seq
        self.oldestReplayableSeq = oldestReplayableSeq
        self.subscribers = subscribers
        self.clients = clients
        self.uptimeSeconds = uptimeSeconds
        self.lastChange = lastChange
        self.server = server
    }
}

import BooksCore
import BooksProtocol

/// Something that happened to a book file's engine, fed to ``ReconcilerStateMachine/handle(_:)``.
///
/// Inputs carry everything the state machine needs to decide: the content read, the result of a
/// save, the time. The machine never reads a file, a socket or a clock itself.
public enum ReconcilerInput: Sendable {
    /// The file as read at start (its content is the baseline, seq 0, not a change).
    case loaded(BookStoreSnapshot)
    /// The file of a store that appeared while the daemon runs, as first read: the store starts
    /// with no books at seq 0 and the file's books are its first change set (seq 1, all inserted),
    /// as a store that disappears ends with one deleting them all.
    case appeared(BookStoreSnapshot)
    /// The store stops being served (its file left the watched folder): its books are deleted in a
    /// last change set (source `file`), whatever the file's confirmation timer would have decided.
    case retired
    /// The watcher reported an event on the file.
    case fileEvent(FileWatchEvent)
    /// The answer to ``ReconcilerAction/observeFile(_:unlessIdentity:)``.
    case fileObserved(FileObservation, for: ObservationPurpose)
    /// Client writes, authorized and with their ids assigned, wait for the next group commit.
    case writesReceived([PendingWrite])
    /// Writes put back for a retry may now be committed (the retry timer fired), or
    /// a drain wants every queued write committed.
    case writesDue
    /// The answer to ``ReconcilerAction/save(_:onto:expected:)``.
    case saveFinished(Result<SaveResult, BookFileError>)
    /// The answer to ``ReconcilerAction/writeLateEdit(merged:replacing:expected:late:)``.
    case lateEditWritten(Result<AtomicWriteResult, BookFileError>, late: [UInt8], merged: [UInt8])
    /// The confirmation timer of a destructive-looking state fired.
    case confirmationTimerFired(generation: Int)
    /// The answer to ``ReconcilerAction/readForConfirmation(generation:)``.
    case confirmationRead(BookStoreSnapshot, generation: Int)
    /// The timer of a deferred comparison fired; `writesWaiting` says whether client writes are
    /// waiting in the engine's inbox (the comparison may then wait a little longer).
    case verificationTimerFired(writesWaiting: Bool)
    /// The timer of a re-read after an I/O error fired.
    case rereadTimerFired
    /// Finish what is pending: a deferred comparison at once, then `writes` (the engine's inbox)
    /// and every other queued write.
    case drain([PendingWrite])
    /// A read request (`status`, `list`, `get`, `subscribe`, `unsubscribe`).
    case read(Request, from: ReplyTarget, ReadEnvironment)
    /// The file's reads since seq `after` found the members outside `id|name|author` (a JSON
    /// file's `isbn`) of books `ids` edited (``BookStore/takeUnknownMemberEdits()``).
    case unknownMembersEdited([String], after: UInt64)
    /// The editor locks found beside the file (vim swap files, nano and Emacs locks) when it was
    /// read for an observation; `next` (that observation's answer) follows. The locks tell which
    /// version a save came from; they count for `next` only.
    indirect case editorLocksSeen([EditorLock], then: ReconcilerInput)
    /// The answer to ``ReconcilerAction/writeMergedSave(merged:replacing:expected:)``.
    case mergedSaveWritten(Result<AtomicWriteResult, BookFileError>, merged: [UInt8])
    /// The conflicts kept from before a restart.
    case conflictsLoaded([RecordedConflict])
    /// The file versions kept from before a restart (oldest first; see `FileVersionsLog`): a save
    /// from a buffer loaded before it is then merged like any other.
    case fileVersionsLoaded([FileVersion])
    /// The bases of nano and Emacs lock holders kept from before a restart (least recently set
    /// first; see `FileVersionsLog`): a save from such a buffer opened before it is then merged.
    case lockBasesLoaded([LockHolderBases.Entry])
    /// `resolve`: settle conflict `id` by taking one side's value (a write like any client's,
    /// attributed to `source` and `actor`).
    case resolveConflict(
        Int, take: ConflictSide, requestID: String, connection: ReplyTarget, source: ChangeSource = .client,
        actor: ChangeActor? = nil)
    /// `undo`: write the inverse of change sets `seqs` as one change set (source `undo`).
    case undo([UInt64], force: Bool, requestID: String, connection: ReplyTarget, actor: ChangeActor?)
}

/// Why the file is being looked at: decides what the observation leads to.
public enum ObservationPurpose: Sendable, Hashable {
    /// A watcher event: apply what changed (an untouched file defers the comparison).
    case fileEvent
    /// The deferred comparison of an event on an apparently untouched file.
    case verification
    /// A group commit brings the context up to date before planning its save.
    case commit
}

/// What looking at the file found.
public enum FileObservation: Sendable {
    /// The file still has the identity the machine named, so it was not read.
    case sameIdentity(FileIdentity)
    /// The file was read and compared with the content held.
    case compared(FileComparison)
}

/// A client write waiting for the next group commit.
public struct PendingWrite: Sendable {
    /// The request's id, echoed in the reply.
    public var requestID: String
    /// Where the reply goes.
    public var connection: ReplyTarget
    /// What the write does.
    public var operation: WriteOperation
    /// Ids the daemon gave to this write's inserts; kept across retries, so a retry of a write
    /// that did land finds its books instead of adding them twice.
    public var assignedIDs: [String]
    /// Where the write came from: `client` (the socket) or `nats`.
    public var source: ChangeSource
    /// Who asked for it (the socket peer's credentials and program; over NATS what the requester
    /// declared, marked `via` `nats`, else ``ChangeActor/nats``).
    public var actor: ChangeActor?
    /// Whether the write may be committed without reading the file first when the file still has
    /// the identity it had when last read or written, updates and deletes too (a replica's write
    /// of the owner's books: its rewrite is checked against the version planned on after the swap,
    /// see `untouchedIdentityForAppending`). Inserts alone always may.
    public var writesWithoutRead = false

    /// Creates a pending write.
    public init(
        requestID: String, connection: ReplyTarget, operation: WriteOperation, assignedIDs: [String] = [],
        source: ChangeSource = .client, actor: ChangeActor? = nil
    ) {
        self.requestID = requestID
        self.connection = connection
        self.operation = operation
        self.assignedIDs = assignedIDs
        self.source = source
        self.actor = actor
    }
}

/// What a read request may need to know beyond the books (for `status`).
public struct ReadEnvironment: Sendable {
    /// The socket server's counters.
    public var statistics: ServerStatistics
    /// How the file is watched (`inotify` or `polling`) and why, if not as expected.
    public var watcher: WatchMode?
    /// A warning about the watch, if any.
    public var watcherWarning: String?
    /// Seconds since the engine started.
    public var uptimeSeconds: Double
    /// How long filtering and sorting may take (`list`, `query`, a `subscribe` snapshot).
    public var queryBudget: QueryBudget
    /// For a replica: its state line (see `DaemonStatus.replica`).
    public var replica: String?

    /// Creates the environment of one read.
    public init(
        statistics: ServerStatistics = ServerStatistics(), watcher: WatchMode? = nil,
        watcherWarning: String? = nil, uptimeSeconds: Double = 0, queryBudget: QueryBudget = .unlimited
    ) {
        self.statistics = statistics
        self.watcher = watcher
        self.watcherWarning = watcherWarning
        self.uptimeSeconds = uptimeSeconds
        self.queryBudget = queryBudget
    }
}

import BooksCore
import BooksProtocol

/// The decisions of one book file's engine, as a value that performs no I/O: an input goes in
/// (the file was compared, a timer fired, writes arrived, a save finished, a read was asked),
/// actions come out (broadcast, reply, save this, schedule that, log), and `BookEngine` carries
/// them out. It owns the book context (the books, the seq, the change log) and the file's state.
///
/// Guarantees:
/// - Content is applied only from what an input carries; a destructive-looking state (missing,
///   empty, drastically shrunk) is believed only when the same content is read again after the
///   confirmation delay (``ReconcilerAction/scheduleConfirmation(generation:after:)``); anything
///   else is applied at once.
/// - An event on a file that still has the identity last seen (the daemon's own write, typically)
///   is compared later (``ReconcilerAction/scheduleVerification(after:)``), never skipped.
/// - A group of client writes is committed with one save, after the context was brought up to
///   date with the file; the save replaces the file only if it is still the version compared (a
///   refused save is retried on top of the new content), so a hand edit is never overwritten.
///   A write is acknowledged only once the context holds it.
/// - Every applied change set is broadcast before any reply that depends on it.
public struct ReconcilerStateMachine: Sendable {
    /// The settings the decisions depend on.
    public struct Configuration: Sendable, Hashable {
        /// The book file's path and format (for `status`).
        public var path: String
        public var format: BookFileFormat
        /// How long a destructive-looking state must stand still before it is believed.
        public var confirmationDelay: Duration
        /// Lines longer than this are bad lines.
        public var maxLineBytes: Int
        /// How many change sets the change log keeps.
        public var changeLogRetention: Int
        /// Change sets older than this many seconds before the newest are dropped (nil: no limit).
        public var historyMaxAge: Double?
        /// The history kept is cut to this many bytes (nil: no limit).
        public var historyMaxBytes: Int?
        /// The server's name in `hello` replies.
        public var serverName: String

        /// Creates a configuration.
        public init(
            path: String, format: BookFileFormat = .text, confirmationDelay: Duration = .seconds(1),
            maxLineBytes: Int = 1 << 20, changeLogRetention: Int = 10_000,
            historyMaxAge: Double? = nil, historyMaxBytes: Int? = nil,
            serverName: String = BookSyncVersion.line(program: "booksd")
        ) {
            self.historyMaxAge = historyMaxAge
            self.historyMaxBytes = historyMaxBytes
            self.path = path
            self.format = format
            self.confirmationDelay = confirmationDelay
            self.maxLineBytes = maxLineBytes
            self.changeLogRetention = changeLogRetention
            self.serverName = serverName
        }
    }

    /// How often a save refused because the file changed under it is retried.
    static let writeRetryLimit = 50
    /// The pause before such a retry.
    static let writeRetryDelay = Duration.milliseconds(5)
    /// How long a deferred comparison waits per round, and for how many rounds at most while
    /// client writes keep coming.
    static let verificationDelay = Duration.milliseconds(20)
    static let verificationMaximumRounds = 9

    /// The settings in force.
    public private(set) var configuration: Configuration
    /// The books, the seq, the epoch and the change log.
    public package(set) var context: BookLedger
    /// The file as last seen.
    public internal(set) var fileState: FileState = .missing
    /// The identity of the file content last read or written.
    public internal(set) var identity: FileIdentity?
    /// Client writes waiting for the next commit.
    public internal(set) var queued: [PendingWrite] = []
    /// What the write path is doing (see ``CommitState``).
    var commitState: CommitState = .idle(retries: 0)
    /// The state waiting to stand still, if any (see ``ConfirmationState``).
    var confirming: ConfirmationState = .none(generation: 0)
    /// Rounds a deferred comparison has waited; nil when none is pending.
    var verificationRounds: Int?
    var lastLoggedProblem: String?
    /// A re-read after an I/O error is scheduled; how many in a row found the file unreadable.
    var rereadPending = false
    var rereadFailures = 0
    var revertDetector = RevertedWriteDetector()
    /// Set while the context restored from saved history waits for the file's content at start:
    /// the content is then compared with it (an ordinary change set) instead of replacing it.
    package var resumingHistory = false
    /// The recent versions of the file (seq and identity), to tell which one an editor loaded.
    public internal(set) var fileVersions = FileVersions()
    /// The editor locks seen beside the file when it was last compared (see ``ReconcilerInput/editorLocksSeen(_:then:)``).
    var editorLocks: [EditorLock] = []
    /// For nano and Emacs locks (which name no version): the version each holder's buffer came from.
    package var lockBases = LockHolderBases()
    /// The holders of such locks there at the last look and gone at this one (see ``LockHolderBases/look(_:current:)``).
    var vanishedHolders: [String] = []
    /// Conflicts of merged saves, not settled yet, oldest first.
    public internal(set) var conflicts: [RecordedConflict] = []
    var nextConflictID = 1
    /// The conflicts being settled by a write of the others' value, by that write's request: each
    /// is dropped when the write succeeds and kept when it fails.
    var settling: [ConflictSettlement: Int] = [:]
    /// The side each conflict being settled takes (by conflict id), for its `conflict` event.
    var settlingSides: [Int: ConflictSide] = [:]
    /// The books an `undo` under way leaves alone (changed since), by its request: added to its reply.
    var undoRefusals: [ConflictSettlement: [BookConflict]] = [:]
    /// A merged save being written (only ever set while one input's actions are carried out).
    var mergedWrite: MergedWrite?
    /// The seqs of client writes that file edits standing as written undid lately (for `status`).
    public internal(set) var recentReverts: [UInt64] = []
    /// How hand edits are attributed (the file owner's name).
    public var attribution = ReconcilerAttribution()
    /// What an editor's swap or lock file says about the edit being applied, when the engine found
    /// such evidence; nil: hand edits are attributed to the file's owner.
    public var editorEvidence: EditorEvidence?

    /// Creates the machine with no books, in a new epoch, until ``ReconcilerInput/loaded(_:)``.
    public init(configuration: Configuration, epoch: String? = nil) {
        self.configuration = configuration
        let document = BookDocument(lineLimit: configuration.maxLineBytes)
        context =
            epoch.map { BookLedger(document: document, epoch: $0, retention: configuration.changeLogRetention) }
            ?? BookLedger(document: document, retention: configuration.changeLogRetention)
    }

    /// Takes new settings (a reload); they apply from the next input on.
    public mutating func reconfigure(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether a deferred comparison is pending.
    public var isVerificationPending: Bool { verificationRounds != nil }

    /// Decides what `input` leads to.
    public mutating func handle(_ input: ReconcilerInput) -> [ReconcilerAction] {
        var actions = decide(input)
        if !settling.isEmpty { settleConflicts(answeredBy: &actions) }
        if !undoRefusals.isEmpty { reportUndoRefusals(in: &actions) }
        if context.log.maxAge != configuration.historyMaxAge || context.log.maxBytes != configuration.historyMaxBytes {
            context.limitHistory(maxAge: configuration.historyMaxAge, maxBytes: configuration.historyMaxBytes)
        }
        noteVersion()
        return actions
    }

    private mutating func decide(_ input: ReconcilerInput) -> [ReconcilerAction] {
        switch input {
        case .editorLocksSeen(let locks, let next):
            editorLocks = locks
            defer { (editorLocks, vanishedHolders) = ([], []) }
            noteLockHolders()
            let seq = context.seq
            let actions = decide(next)
            if case .fileObserved(_, let purpose) = next, purpose != .commit, context.seq != seq { noteStandingSave() }
            return actions
        case .mergedSaveWritten(let result, let merged): return mergedSaveWritten(result, merged: merged)
        case .conflictsLoaded(let loaded):
            conflicts = loaded
            nextConflictID = (loaded.map(\.id).max() ?? 0) + 1
            return []
        case .fileVersionsLoaded(let loaded): return fileVersionsLoaded(loaded)
        case .lockBasesLoaded(let kept):
            lockBases.restore(kept)
            return []
        case .resolveConflict(let id, let take, let requestID, let connection, let source, let actor):
            return resolveConflict(
                id, take: take, requestID: requestID, connection: connection, source: source, actor: actor)
        case .undo(let seqs, let force, let requestID, let connection, let actor):
            return undo(seqs, force: force, requestID: requestID, connection: connection, actor: actor)
        case .loaded(let snapshot): return loaded(snapshot)
        case .appeared(let snapshot): return appeared(snapshot)
        case .retired: return retired()
        case .fileEvent(let event): return fileEvent(event)
        case .fileObserved(let observation, let purpose): return fileObserved(observation, for: purpose)
        case .writesReceived(let writes):
            queued.append(contentsOf: writes)
            return commitQueuedWrites()
        case .writesDue: return commitQueuedWrites()
        case .saveFinished(let result): return saveFinished(result)
        case .lateEditWritten(let result, let late, let merged):
            return lateEditWritten(result, late: late, merged: merged)
        case .confirmationTimerFired(let generation): return confirmationTimerFired(generation)
        case .confirmationRead(let snapshot, let generation): return confirmationRead(snapshot, generation: generation)
        case .verificationTimerFired(let writesWaiting): return verificationTimerFired(writesWaiting: writesWaiting)
        case .rereadTimerFired: return rereadTimerFired()
        case .drain(let writes):
            queued.append(contentsOf: writes)
            var actions: [ReconcilerAction] = []
            if verificationRounds != nil { actions.append(.observeFile(.verification, unlessIdentity: nil)) }
            actions.append(.process(.writesDue))
            return actions
        case .read(let request, let connection, let environment):
            return read(request, from: connection, environment)
        case .unknownMembersEdited(let ids, let seq): return unknownMembersEdited(ids, reportedAfter: seq)
        }
    }
}

extension ReconcilerStateMachine {
    /// The log lines of a file read at a start or as a store appears: "loaded 1 book, 0 bad
    /// lines", and a warning when it has bad lines.
    static func loadedLog(_ document: BookDocument) -> [ReconcilerAction] {
        let (books, bad) = (document.bookCount, document.badLineCount)
        var actions: [ReconcilerAction] = [
            .log(.info, "loaded \(books) book\(books == 1 ? "" : "s"), \(bad) bad line\(bad == 1 ? "" : "s")")
        ]
        if bad > 0 { actions.append(.log(.warning, "the book file has \(bad) bad line(s); see booksctl status")) }
        return actions
    }
}

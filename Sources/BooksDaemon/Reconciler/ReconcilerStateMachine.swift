import BooksCore
import BooksProtocol
import BooksStore

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
            serverName: String = BooksdCommandLine.versionString
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

    /// A group commit between its steps (only ever set while one input's actions are carried out).
    enum CommitPhase: Sendable {
        case observing([PendingWrite])
        case saving(Commit)
        case writingLateEdit(Commit)
    }

    /// The accepted and deferred writes of a commit whose save was planned.
    struct Commit: Sendable {
        var accepted: [(ticket: PendingWrite, outcome: WritePlan<PendingWrite>.Outcome)]
        var deferred: [PendingWrite]
        /// The save with a base among `accepted`, merged (see ``mergeBasedSave(_:into:)``).
        var based: BasedSave? = nil
    }

    /// A destructive-looking state waiting to be confirmed.
    struct Confirmation: Sendable {
        var generation: Int
        var observed: [UInt8]?
        var reason: String
        /// For a save from a stale buffer: the editor locks seen with it (it is merged once confirmed).
        var locks: [EditorLock] = []
        /// And the holders whose lock had just vanished (see ``LockHolderBases/look(_:current:)``).
        var vanished: [String] = []
    }

    /// The settings in force.
    public private(set) var configuration: Configuration
    /// The books, the seq, the epoch and the change log.
    public internal(set) var context: BookContext
    /// The file as last seen.
    public internal(set) var fileState: FileState = .missing
    /// The identity of the file content last read or written.
    public internal(set) var identity: FileIdentity?
    /// Client writes waiting for the next commit.
    public internal(set) var queued: [PendingWrite] = []
    var commitPhase: CommitPhase?
    var confirmation: Confirmation?
    var confirmationGeneration = 0
    var writeRetries = 0
    /// Rounds a deferred comparison has waited; nil when none is pending.
    var verificationRounds: Int?
    var lastLoggedProblem: String?
    /// A re-read after an I/O error is scheduled; how many in a row found the file unreadable.
    var rereadPending = false
    var rereadFailures = 0
    var revertDetector = RevertedWriteDetector()
    /// Set while the context restored from saved history waits for the file's content at start:
    /// the content is then compared with it (an ordinary change set) instead of replacing it.
    var resumingHistory = false
    /// The recent versions of the file (seq and identity), to tell which one an editor loaded.
    public internal(set) var fileVersions = FileVersions()
    /// The editor locks seen beside the file when it was last compared (see ``ReconcilerInput/editorLocksSeen(_:then:)``).
    var editorLocks: [EditorLock] = []
    /// For nano and Emacs locks (which name no version): the version each holder's buffer came from.
    var lockBases = LockHolderBases()
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
    /// Set when a commit left queued writes behind (an undo is committed on its own).
    var commitLeftWrites = false
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
            epoch.map { BookContext(document: document, epoch: $0, retention: configuration.changeLogRetention) }
            ?? BookContext(document: document, retention: configuration.changeLogRetention)
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

    // MARK: Loading and file events

    mutating func loaded(_ snapshot: BookStoreSnapshot) -> [ReconcilerAction] {
        if resumingHistory { return resumed(snapshot) }
        var actions: [ReconcilerAction] = []
        switch snapshot {
        case .unavailable(let error):
            fileState = .unavailable(error.description)
            lastLoggedProblem = error.description
            actions.append(.log(.error, "cannot use the book file: \(error)"))
            actions += scheduleReread(after: error)
            confirmationGeneration += 1
        case .missing:
            fileState = .missing
            identity = nil
            actions.append(.log(.notice, "the book file does not exist yet; starting with no books"))
        case .present(let canonical, let identity):
            lastLoggedProblem = nil
            let document = BookDocument(parsing: canonical, lineLimit: configuration.maxLineBytes)
            context = BookContext(document: document, epoch: context.epoch, retention: configuration.changeLogRetention)
            fileState = .present
            self.identity = identity
            actions += Self.loadedLog(document)
        }
        return actions + afterFileChange()
    }

    private mutating func fileEvent(_ event: FileWatchEvent) -> [ReconcilerAction] {
        var actions: [ReconcilerAction] = []
        switch event {
        case .attributesChanged:
            return []  // chmod/touch: no content decision on attributes alone
        case .overflow:
            actions.append(.log(.warning, "inotify queue overflowed: re-reading the whole file"))
        case .watchLost:
            actions.append(
                .log(.warning, "the watch on the file's directory was lost or re-established: re-reading the file"))
        case .contentMayHaveChanged, .removed, .created:
            break
        }
        return actions + refresh(mayDefer: event == .contentMayHaveChanged)
    }

    /// Looks at the file after an event. A write being retried reads the file itself (and tells
    /// the hand edit's rows from the client's); an event on a file that still looks as last seen
    /// is compared later.
    mutating func refresh(mayDefer: Bool) -> [ReconcilerAction] {
        if writeRetries > 0, !queued.isEmpty { return commitQueuedWrites() }
        let known = mayDefer && fileState == .present ? identity : nil
        return [.observeFile(.fileEvent, unlessIdentity: known)]
    }

    private mutating func fileObserved(
        _ observation: FileObservation, for purpose: ObservationPurpose
    ) -> [ReconcilerAction] {
        switch (purpose, observation) {
        case (.commit, _):
            return commitObserved(observation)
        case (_, .sameIdentity):
            return [.log(.debug, "file event on the identity last read or written: comparison deferred")]
                + scheduleVerification()
        case (_, .compared(let comparison)):
            verificationRounds = nil  // any full comparison settles a deferred one
            return applyFileChanges(comparison) + afterFileChange()
        }
    }

    /// What follows a change from the file: ids for rows typed by hand, then the status line.
    mutating func afterFileChange() -> [ReconcilerAction] {
        var actions: [ReconcilerAction] = []
        if context.document.newBookCount > 0, fileState == .present, commitPhase == nil {
            actions += startCommit([])
        }
        actions.append(.publishStatus)
        return actions
    }

    /// Defers the comparison of an event on an apparently untouched file: for the event of the
    /// daemon's own write it finds nothing, and waiting (while client writes keep coming, up to
    /// `verificationMaximumRounds`) keeps a full re-read out of the way of the next write. It
    /// still always runs: an edit that kept size and timestamps is reported late, never missed.
    private mutating func scheduleVerification() -> [ReconcilerAction] {
        guard verificationRounds == nil else { return [] }
        verificationRounds = 0
        return [.scheduleVerification(after: Self.verificationDelay)]
    }

    private mutating func verificationTimerFired(writesWaiting: Bool) -> [ReconcilerAction] {
        guard let rounds = verificationRounds else { return [] }  // settled meanwhile
        if writesWaiting || !queued.isEmpty, rounds + 1 < Self.verificationMaximumRounds {
            verificationRounds = rounds + 1
            return [.scheduleVerification(after: Self.verificationDelay)]
        }
        return [.observeFile(.verification, unlessIdentity: nil)]
    }

    /// Applies what a comparison after a watcher event found; a destructive-looking state waits
    /// for confirmation.
    mutating func applyFileChanges(_ comparison: FileComparison) -> [ReconcilerAction] {
        switch comparison {
        case .unavailable(let error):
            fileState = .unavailable(error.description)
            confirmationGeneration += 1
            let reread = scheduleReread(after: error)
            guard lastLoggedProblem != error.description else { return reread }
            lastLoggedProblem = error.description
            return [.log(.error, "cannot use the book file: \(error)")] + reread
        case .missing:
            if context.bookCount == 0 {
                return applyFileEdit(identity: nil) { $0.apply(bytes: [], source: .file, actor: $1) }
            }
            return scheduleConfirmation(observed: nil, reason: "the file disappeared")
        case .unchanged(let identity):
            lastLoggedProblem = nil
            fileState = .present
            self.identity = identity
            confirmationGeneration += 1
            return []
        case .changed(let splice, let identity):
            lastLoggedProblem = nil
            if let reason = destructiveReason(splice) {
                return scheduleConfirmation(
                    observed: splice.applied(to: context.document.bytes), reason: reason, locks: editorLocks)
            }
            // The same content as a save from a stale buffer waiting to stand still (an editor's
            // second write of it, or its lock gone meanwhile): it keeps waiting.
            if let pending = confirmation, !pending.locks.isEmpty || !pending.vanished.isEmpty,
                let seen = pending.observed, ByteComparison.equal(splice.applied(to: context.document.bytes), seen)
            {
                return []
            }
            // A save from a stale buffer is merged once it stands still: an editor may still be
            // writing it, and a merge of half a save would re-apply the others' changes onto it.
            if hasSaveEvidence, mergeStaleSave(splice) != nil {
                return scheduleConfirmation(
                    observed: splice.applied(to: context.document.bytes), reason: "a save from a stale buffer",
                    locks: editorLocks, vanished: vanishedHolders)
            }
            // A file renamed over the book file (sed -i, a script's temporary file) that was made
            // before versions booksd wrote since: the program read an older version. It is
            // complete (a rename is atomic), so it is merged at once.
            if editorLocks.isEmpty, let stale = mergeStaleSave(splice, bases: birthBases(identity)) {
                return applyStaleSave(stale, identity: identity)
            }
            return applyFileEdit(identity: identity) { $0.apply(splice: splice, source: .file, actor: $1) }
        }
    }

    /// Why `splice` makes the file look destructive (see `DestructiveChangeGuard`), if it does.
    func destructiveReason(_ splice: ByteSplice) -> String? {
        DestructiveChangeGuard().reason(old: context.document.bytes, oldBookCount: context.bookCount, splice: splice)
    }

    /// Applies a file edit with `change`: broadcast, then logs (subscribers first).
    mutating func applyFileEdit(
        identity: FileIdentity?,
        _ change: (inout BookContext, ChangeActor) -> SequencedChangeSet?
    ) -> [ReconcilerAction] {
        let actor = fileActor(identity)
        confirmationGeneration += 1
        confirmation = nil
        fileState = identity == nil ? .missing : .present
        self.identity = identity
        var actions: [ReconcilerAction] = []
        let before = context.document.badLineCount
        if var applied = change(&context, actor) {
            let reverted = revertDetector.isEmpty ? nil : revertDetector.reverted(by: applied.changes)
            if reverted != nil {
                applied.reverts = revertDetector.revertedSeqs
                context.markReverts(revertDetector.revertedSeqs)  // kept in the change log and journal
                recentReverts = Array((recentReverts + revertDetector.revertedSeqs).suffix(16))
            }
            actions.append(.broadcast(applied))
            if let reverted {
                let ids = reverted.inserted.map { $0.id ?? "?" } + reverted.updated.map(\.id) + reverted.deleted
                actions.append(
                    .log(
                        .warning,
                        """
                        a file edit undid \(ids.count) client write(s) made seconds before (books \
                        \(ids.joined(separator: ", "))); if the program that saved read the file before those \
                        writes, they are lost
                        """
                    ))
            }
            let c = applied.changes
            actions.append(
                .log(
                    .info,
                    "file edit: \(c.inserted.count) inserted, \(c.updated.count) updated, \(c.deleted.count) deleted",
                    seq: applied.seq))
        }
        let after = context.document.badLineCount
        if after != before { actions.append(.log(.warning, "the book file has \(after) bad line(s)")) }
        return actions
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

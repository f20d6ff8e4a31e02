import BooksCore
import BooksProtocol
import BooksStore
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// The daemon's heart: it owns the book context and applies to it, one at a time, file edits seen
/// by the watcher and writes asked by clients, then hands every applied change set to the clients.
///
/// Threading: every operation runs on one serial dispatch queue (not the cooperative pool, since
/// it does blocking file I/O); the state lives in a `Mutex` that only that queue locks for long.
/// Other threads (socket server, signal handlers) only post work to the queue; the watcher's
/// thread runs file events through it synchronously (inline once the queue is free).
///
/// Guarantees:
/// - File content is read only on a completed write (the watcher's events), and a destructive-
///   looking state (missing, empty, drastically shrunk) is believed only after it stood still for
///   the confirmation period; everything else is applied at once. An event on a file that still
///   has the identity last seen (the daemon's own write, typically) is compared up to 200 ms
///   later, so that it does not hold up client writes.
/// - A group of inserts into an untouched file is appended without re-reading the file first
///   (see `untouchedIdentityForAppending`).
/// - A client write first brings the context up to date with the file, then replaces the file
///   atomically only if it is still the version read (else it starts over), so a concurrent hand
///   edit is never overwritten. Pending writes are committed together (one durable rewrite).
/// - The daemon's own writes are applied to the context directly; when the watcher then reports
///   them, the content equals the context and nothing is reported twice.
public final class Reconciler: Sendable {
    struct State: Sendable {
        var context: BookContext
        var fileState: FileState = .missing
        var identity: FileIdentity?
        var confirmationGeneration = 0
        var writeRetries = 0
        var configuration: DaemonConfiguration
        var watcherMode = "inotify"
        var watcherWarning: String?
        var shuttingDown = false
        var lastLoggedProblem: String?
        var writeGuard = ClientWriteGuard()
        var lastStatusLine: String?
        /// A full comparison of an event whose file still had the identity last seen is pending
        /// until this time (see `scheduleVerification`).
        var verificationDue: ContinuousClock.Instant?
    }

    /// A client write waiting for the next group commit.
    struct PendingWrite: Sendable {
        var requestID: String
        var connection: ConnectionID
        var operation: WriteOperation
        /// Ids the daemon gave to this write's inserts (kept across retries, so a retry of a write
        /// that did land finds its books instead of adding them twice).
        var assignedIDs: [String] = []
    }

    let queue = DispatchQueue(label: "booksd.reconciler")
    let state: Mutex<State>
    /// Client writes waiting for the next group commit. Apart from `state`, which the queue
    /// holds through a whole commit (file I/O and sync included): the server thread only ever
    /// takes these two small locks, so accepting requests never waits for a disk. Lock order:
    /// `state` before `inbox`.
    let inbox = Mutex<[PendingWrite]>([])
    /// Who may write (uids, groups), from the configuration.
    let writers: Mutex<(uids: [uid_t], groups: [gid_t])>
    let store: any BookStore
    let logger: Logger
    let notifier: SystemdNotifier
    let startTime = ContinuousClock.now
    let channelBox = Mutex<(any ClientChannel)?>(nil)
    let guardRule = DestructiveChangeGuard()
    let accounts: WriterAuthorization

    /// Creates a reconciler for `configuration`'s file, with an empty context until `load()`.
    public init(configuration: DaemonConfiguration, store: any BookStore, logger: Logger,
                notifier: SystemdNotifier = SystemdNotifier()) {
        self.store = store
        self.logger = logger
        self.notifier = notifier
        self.accounts = WriterAuthorization()
        writers = Mutex((configuration.writerUIDs, configuration.writerGroups))
        let document = BookDocument(lineLimit: configuration.maxLineBytes)
        state = Mutex(State(context: BookContext(document: document, retention: configuration.changeLogRetention),
                            configuration: configuration))
    }

    /// The channel replies and change sets go to (the socket server).
    public func attach(_ channel: any ClientChannel) {
        channelBox.withLock { $0 = channel }
    }

    var channel: (any ClientChannel)? { channelBox.withLock { $0 } }

    /// Records how the file is watched, for `status`.
    public func setWatcher(mode: String, warning: String?) {
        state.withLock { $0.watcherMode = mode; $0.watcherWarning = warning }
    }

    /// The current lineage and seq (for `hello`, from any thread).
    public var position: (epoch: String, seq: UInt64) {
        state.withLock { ($0.context.epoch, $0.context.seq) }
    }

    /// Loads the file synchronously (before the daemon is ready) and gives ids to hand-typed rows.
    public func load() {
        queue.sync {
            if let repaired = AppendWriter.recover(path: store.configuration.path) {
                logger.warning(repaired, ["BOOKS_FILE": store.configuration.path])
            }
            let removed = AtomicFileWriter.removeStaleTemporaries(beside: store.configuration.path)
            if !removed.isEmpty { logger.notice("removed temporary files left by an interrupted write: \(removed.joined(separator: ", "))") }
            refresh(initial: true)
        }
    }

    // MARK: File events

    /// Called by the watcher (any thread but the reconciler's queue): re-reads the file on the
    /// reconciler's queue and returns when the change was applied.
    public func fileEvent(_ event: FileWatchEvent) {
        switch event {
        case .attributesChanged:
            return   // chmod/touch: no content decision on attributes alone
        case .overflow:
            logger.warning("inotify queue overflowed: re-reading the whole file", ["BOOKS_FILE": store.configuration.path])
        case .watchLost:
            logger.warning("the watch on the file's directory was lost or re-established: re-reading the file",
                           ["BOOKS_FILE": store.configuration.path])
        default:
            break
        }
        // Run on the caller's thread (the watcher's own thread, never the cooperative pool) once
        // the queue is free: `sync` on a serial queue executes inline, which saves waking a worker
        // thread for every edit (~0.1 ms here), and the watcher reads its next event only after
        // this one was applied, so events are still handled one at a time and in order.
        let mayDefer = event == .contentMayHaveChanged
        queue.sync { self.refresh(initial: false, mayDefer: mayDefer) }
    }

    /// Reads the file and applies what changed (on the queue).
    func refresh(initial: Bool, mayDefer: Bool = false) {
        dispatchPrecondition(condition: .onQueue(queue))
        // A client write is being retried because the file changed under it: the retry reads the
        // file itself and tells the hand edit's rows from the client's.
        if !initial, state.withLock({ $0.writeRetries > 0 }), !inbox.withLock({ $0.isEmpty }) {
            processWritesIfAny()
            return
        }
        if !initial, mayDefer, fileHasLastSeenIdentity() {
            logger.debug("file event on the identity last read or written: comparison deferred")
            scheduleVerification()
            return
        }
        if initial {
            loadInitialContent()
            assignIDsToNewRowsIfAny()
            publishStatus()
        } else {
            refreshFromFile()
        }
    }

    /// Compares the file and applies what changed, then what follows a change (ids for rows typed
    /// by hand, the systemd status line).
    func refreshFromFile() {
        applyFileChanges()
        assignIDsToNewRowsIfAny()
        publishStatus()
    }

    /// How long the comparison of an event on an apparently untouched file may wait for the
    /// queue to be free of client writes, and how long it waits at most.
    static let verificationDelayMilliseconds = 20
    static let verificationMaximumDelay = Duration.milliseconds(200)

    /// Whether the file still has the identity (inode, size, times) of the content last read or
    /// written: the event is most likely the daemon's own write (an append, a rename-over).
    func fileHasLastSeenIdentity() -> Bool {
        let known = state.withLock { s -> FileIdentity? in s.fileState == .present ? s.identity : nil }
        guard let known else { return false }
        return FileIdentity.of(path: store.configuration.path) == known
    }

    /// Compares the file a little later instead of at once. For the event of the daemon's own
    /// write the comparison finds nothing; deferring it (coalesced, while client writes keep
    /// coming, up to `verificationMaximumDelay`) keeps a 67 MB re-read out of the way of the next
    /// write. It still always runs: an edit that kept size and timestamps (same size, same clock
    /// tick) is reported at most that much later, never missed.
    func scheduleVerification() {
        let first = state.withLock { s -> Bool in
            guard s.verificationDue == nil else { return false }
            s.verificationDue = .now + Self.verificationMaximumDelay
            return true
        }
        if first { queue.asyncAfter(deadline: .now() + .milliseconds(Self.verificationDelayMilliseconds)) { self.verifyWhenDue() } }
    }

    /// Runs the deferred comparison if one is still pending (any full comparison since settled
    /// it: see `compareWithFile`) — at once with `now`, else unless client writes are waiting and
    /// the deadline allows another short wait.
    func verifyWhenDue(now: Bool = false) {
        let run = state.withLock { s -> Bool? in
            guard let due = s.verificationDue else { return nil }
            if !now, !inbox.withLock({ $0.isEmpty }),
               ContinuousClock.now + .milliseconds(Self.verificationDelayMilliseconds) < due { return false }
            return true
        }
        switch run {
        case nil: return
        case false?: queue.asyncAfter(deadline: .now() + .milliseconds(Self.verificationDelayMilliseconds)) { self.verifyWhenDue() }
        case true?: refreshFromFile()
        }
    }

    /// Reads the whole file at start: its content is the baseline (seq 0), not a change.
    func loadInitialContent() {
        let snapshot = store.fetch()
        state.withLock { s in
            switch snapshot {
            case .unavailable(let error):
                s.fileState = .unavailable(error.description)
                s.lastLoggedProblem = error.description
                logger.error("cannot use the book file: \(error)", ["BOOKS_FILE": store.configuration.path])
                s.confirmationGeneration += 1
            case .missing:
                s.fileState = .missing
                s.identity = nil
                logger.notice("the book file does not exist yet; starting with no books", ["BOOKS_FILE": store.configuration.path])
            case .present(let canonical, let identity):
                s.lastLoggedProblem = nil
                let document = BookDocument(parsing: canonical, lineLimit: s.configuration.maxLineBytes)
                s.context = BookContext(document: document, epoch: s.context.epoch,
                                        retention: s.configuration.changeLogRetention)
                s.fileState = .present
                s.identity = identity
                logger.info("loaded \(document.bookCount) books, \(document.badLineCount) bad lines",
                            ["BOOKS_FILE": store.configuration.path])
                if document.badLineCount > 0 {
                    logger.warning("the book file has \(document.badLineCount) bad line(s); see booksctl status",
                                   ["BOOKS_FILE": store.configuration.path])
                }
            }
        }
    }

    /// Compares the file with the context's document (on the queue, which alone changes the
    /// context, so the result still applies when the state is locked next). The document copy
    /// taken here is released on return, so a splice is then applied in place without copying.
    func compareWithFile() -> FileComparison {
        dispatchPrecondition(condition: .onQueue(queue))
        // This full comparison also settles a deferred one (`scheduleVerification`).
        let document = state.withLock { s in
            s.verificationDue = nil
            return s.context.document
        }
        return store.compare(with: document)
    }

    /// Re-reads the file after a watcher event and applies what changed; a destructive-looking
    /// state waits for confirmation.
    func applyFileChanges() {
        let comparison = compareWithFile()
        state.withLock { s in
            switch comparison {
            case .unavailable(let error):
                s.fileState = .unavailable(error.description)
                if s.lastLoggedProblem != error.description {
                    s.lastLoggedProblem = error.description
                    logger.error("cannot use the book file: \(error)", ["BOOKS_FILE": store.configuration.path])
                }
                s.confirmationGeneration += 1
            case .missing:
                if s.context.bookCount == 0 {
                    s.fileState = .missing
                    s.identity = nil
                    apply(&s, canonical: [], identity: nil)
                } else {
                    scheduleConfirmation(&s, observed: nil, reason: "the file disappeared")
                }
            case .unchanged(let identity):
                s.lastLoggedProblem = nil
                s.fileState = .present
                s.identity = identity
                s.confirmationGeneration += 1
            case .changed(let splice, let identity):
                s.lastLoggedProblem = nil
                if let reason = guardRule.reason(old: s.context.document.bytes, oldBookCount: s.context.bookCount, splice: splice) {
                    scheduleConfirmation(&s, observed: splice.applied(to: s.context.document.bytes), reason: reason)
                } else {
                    apply(&s, splice: splice, identity: identity)
                }
            }
        }
    }

    /// Applies file content to the context and broadcasts the change.
    func apply(_ s: inout State, canonical: [UInt8], identity: FileIdentity?) {
        apply(&s, identity: identity) { $0.apply(bytes: canonical, source: .file) }
    }

    /// Applies a file edit, as a splice of the current content, to the context (in place).
    func apply(_ s: inout State, splice: ByteSplice, identity: FileIdentity) {
        apply(&s, identity: identity) { $0.apply(splice: splice, source: .file) }
    }

    /// Applies a file edit with `change` and broadcasts it.
    func apply(_ s: inout State, identity: FileIdentity?, _ change: (inout BookContext) -> SequencedChangeSet?) {
        s.confirmationGeneration += 1
        s.fileState = identity == nil ? .missing : .present
        s.identity = identity
        let before = s.context.document.badLineCount
        if let applied = change(&s.context) {
            channel?.broadcast(applied)   // subscribers first: logging is not on their path
            if !s.writeGuard.isEmpty { warnAboutRevertedClientWrites(&s, applied.changes) }
            logger.info("file edit: \(applied.changes.inserted.count) inserted, \(applied.changes.updated.count) updated, \(applied.changes.deleted.count) deleted",
                        ["BOOKS_SEQ": "\(applied.seq)", "BOOKS_FILE": store.configuration.path])
        }
        let after = s.context.document.badLineCount
        if after != before {
            logger.warning("the book file has \(after) bad line(s)", ["BOOKS_FILE": store.configuration.path])
        }
    }

    /// Warns when a file edit exactly undoes a recent client write (see `ClientWriteGuard`): the
    /// edit stands — the daemon never overwrites a hand edit — but if the program that saved had
    /// read the file before the write, the write is gone, and the log says so.
    func warnAboutRevertedClientWrites(_ s: inout State, _ changes: ChangeSet) {
        guard let reverted = s.writeGuard.reverted(by: changes) else { return }
        let ids = reverted.inserted.map { $0.id ?? "?" } + reverted.updated.map(\.id) + reverted.deleted
        logger.warning("a file edit undid \(ids.count) client write(s) made seconds before (books \(ids.joined(separator: ", "))); if the program that saved read the file before those writes, they are lost",
                       ["BOOKS_FILE": store.configuration.path])
    }

    /// Waits for a destructive-looking state to stand still, then believes it.
    func scheduleConfirmation(_ s: inout State, observed: [UInt8]?, reason: String) {
        s.confirmationGeneration += 1
        let generation = s.confirmationGeneration
        s.fileState = .confirming(reason)
        let delay = s.configuration.confirmationMilliseconds
        logger.debug("\(reason): waiting \(delay) ms for the file to stand still")
        queue.asyncAfter(deadline: .now() + .milliseconds(delay)) {
            self.confirm(generation: generation, observed: observed, reason: reason)
        }
    }

    func confirm(generation: Int, observed: [UInt8]?, reason: String) {
        let snapshot = store.fetch()
        var again = false
        state.withLock { s in
            guard s.confirmationGeneration == generation else { return }
            switch (snapshot, observed) {
            case (.missing, nil):
                logger.notice("\(reason), and stayed so: all books are gone", ["BOOKS_FILE": store.configuration.path])
                apply(&s, canonical: [], identity: nil)
            case (.present(let canonical, let identity), .some(let seen)) where ByteComparison.equal(canonical, seen):
                logger.notice("\(reason), and it stood still: applying it", ["BOOKS_FILE": store.configuration.path])
                apply(&s, canonical: canonical, identity: identity)
            default:
                again = true
            }
        }
        if again { refresh(initial: false) } else { publishStatus() }
        processWritesIfAny()
    }

    /// Gives permanent ids to rows typed as `name|author` and writes them back in place.
    func assignIDsToNewRowsIfAny() {
        let needed = state.withLock { $0.context.document.newBookCount > 0 && $0.fileState == .present }
        guard needed else { return }
        commit(writes: [])
    }

    // MARK: Requests

    /// Handles a request from a client (called on the server thread; answers asynchronously).
    public func handle(_ request: Request, from connection: ConnectionID, peer: PeerCredentials) {
        switch request.op {
        case .insert, .update, .delete:
            let operation: WriteOperation
            do {
                operation = try WriteOperation(request: request)
            } catch {
                channel?.send(.failure(request.id, error), to: connection)
                return
            }
            let writers = self.writers.withLock { $0 }
            guard accounts.mayWrite(peer, uids: writers.0, groups: writers.1) else {
                logger.notice("refused a write from uid \(peer.uid) (pid \(peer.pid)): not a configured writer")
                channel?.send(.failure(request.id, ProtocolError(.permissionDenied,
                    "uid \(peer.uid) may read but not write; writers are root, the daemon's user and the configured writer_users/writer_groups")),
                              to: connection)
                return
            }
            var write = PendingWrite(requestID: request.id, connection: connection, operation: operation)
            if case .insert(let drafts) = operation {
                let withIDs = drafts.map { draft -> BookDraft in
                    guard draft.id == nil else { return draft }
                    var assigned = draft
                    assigned.id = UUID().uuidString
                    write.assignedIDs.append(assigned.id!)
                    return assigned
                }
                write.operation = .insert(withIDs)
            }
            inbox.withLock { [write] in $0.append(write) }
            queue.async { self.processWritesIfAny() }
        default:
            queue.async { self.answer(request, connection: connection) }
        }
    }

    /// Answers a read request on the queue.
    func answer(_ request: Request, connection: ConnectionID) {
        guard let channel else { return }
        let reply: Reply? = state.withLock { s in
            let context = s.context
            switch request.op {
            case .hello:
                return .success(request.id, ReplyResult(protocolVersion: ProtocolVersion.current, server: BooksdCommandLine.versionString,
                                                        epoch: context.epoch, seq: context.seq))
            case .ping:
                return .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq))
            case .status:
                return .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq, status: status(s)))
            case .list, .query:
                let query = BookQuery(filter: request.filter ?? .all, sort: request.sort, limit: request.limit,
                                      offset: request.offset ?? 0)
                let result = context.query(query)
                return .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq, books: result.books,
                                                        total: result.total))
            case .get:
                guard let ids = request.ids, !ids.isEmpty else {
                    return .failure(request.id, ProtocolError(.invalidArgument, "get needs a non-empty \"ids\" array"))
                }
                var books: [Book] = []
                for id in ids {
                    guard let book = context.book(id: id) else {
                        return .failure(request.id, ProtocolError(.notFound, "no book with id \(id)"))
                    }
                    books.append(book)
                }
                return .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq, books: books,
                                                        versions: ids.map(context.version(of:))))
            case .subscribe:
                let filter = request.filter ?? .all
                var initial: [Event] = []
                if let resume = request.resume {
                    switch context.replay(fromEpoch: resume.epoch, seq: resume.seq) {
                    case .replay(let missed):
                        initial = missed.compactMap { MessageEncoder.changeEvent($0, filter: filter) }
                    case .resyncRequired(let reason):
                        initial.append(Event(event: .resyncRequired, epoch: context.epoch, seq: context.seq, reason: reason))
                        initial.append(snapshot(context, filter))
                    }
                } else {
                    initial.append(snapshot(context, filter))
                }
                channel.startSubscription(connection, reply: .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq)),
                                          filter: filter, initialEvents: initial, afterSeq: context.seq)
                publishStatusAfterServerCounts()
                return nil
            case .unsubscribe:
                channel.stopSubscription(connection, reply: .success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq)))
                publishStatusAfterServerCounts()
                return nil
            case .insert, .update, .delete:
                return nil
            }
        }
        if let reply { channel.send(reply, to: connection) }
    }

    func snapshot(_ context: BookContext, _ filter: BookFilter) -> Event {
        let books = filter.isEmpty ? context.books : context.books.filter(filter.matches)
        return Event(event: .snapshot, epoch: context.epoch, seq: context.seq, books: books)
    }

    func status(_ s: State) -> DaemonStatus {
        let stats = channel?.statistics ?? ServerStatistics()
        let context = s.context
        return DaemonStatus(file: store.configuration.path, format: store.configuration.format.rawValue,
                            fileState: s.fileState.word, fileProblem: s.fileState.problem, bookCount: context.bookCount,
                            badLines: Array(context.document.badLines.prefix(1000)), heldBooks: context.held.keys.sorted(),
                            watcherMode: s.watcherMode, watcherWarning: s.watcherWarning, epoch: context.epoch,
                            seq: context.seq, oldestReplayableSeq: context.seq - UInt64(min(context.log.count, Int(context.seq))),
                            subscribers: stats.subscribers, clients: stats.clients,
                            uptimeSeconds: Double((ContinuousClock.now - startTime).components.seconds),
                            lastChange: context.lastChange.map(ISO8601.format), server: BooksdCommandLine.versionString)
    }

    // MARK: Writes

    func processWritesIfAny() {
        let writes = inbox.withLock { pending -> [PendingWrite] in
            let taken = pending
            pending.removeAll()
            return taken
        }
        guard !writes.isEmpty else { return }
        commit(writes: writes)
    }

    /// Puts writes back at the head of the inbox, before any that arrived meanwhile.
    func requeueFirst(_ writes: [PendingWrite]) {
        inbox.withLock { $0.insert(contentsOf: writes, at: 0) }
    }

    /// One group commit: sync with the file, plan, save once, apply, answer.
    func commit(writes: [PendingWrite]) {
        dispatchPrecondition(condition: .onQueue(queue))
        // 1. Bring the context up to date with the file (see `untouchedIdentityForAppending`
        // for the one case that needs no read).
        let comparison: FileComparison
        if let identity = untouchedIdentityForAppending(writes) {
            comparison = .unchanged(identity: identity)
            logger.debug("commit of \(writes.count) write(s): file untouched (\(identity.traceDescription)), appending without a read")
        } else {
            comparison = compareWithFile()
            logger.debug("commit of \(writes.count) write(s): file \(comparison.traceDescription)")
        }
        var blocked: ProtocolError?
        state.withLock { s in
            switch comparison {
            case .unavailable(let error):
                s.fileState = .unavailable(error.description)
                blocked = ProtocolError(.storeUnavailable, "the book file cannot be written now: \(error)")
            case .missing:
                if s.context.bookCount > 0 {
                    if case .confirming = s.fileState {} else {
                        scheduleConfirmation(&s, observed: nil, reason: "the file disappeared")
                    }
                    blocked = ProtocolError(.storeUnavailable, "the book file is missing or being replaced; retry in a moment")
                } else {
                    s.identity = nil
                }
            case .unchanged(let identity):
                s.identity = identity
                s.fileState = .present
            case .changed(let splice, let identity):
                if let reason = guardRule.reason(old: s.context.document.bytes, oldBookCount: s.context.bookCount, splice: splice) {
                    if case .confirming = s.fileState {} else {
                        scheduleConfirmation(&s, observed: splice.applied(to: s.context.document.bytes), reason: reason)
                    }
                    blocked = ProtocolError(.storeUnavailable, "the book file is being rewritten (\(reason)); retry in a moment")
                } else if s.writeRetries > 0, !writes.isEmpty {
                    // A retry: the hand edit that made the write retry may carry rows the
                    // first attempt appended. Report the hand edit as such, and the client's
                    // rows as the client's.
                    let canonical = splice.applied(to: s.context.document.bytes)
                    let ours = Set(writes.flatMap(\.assignedIDs))
                    applyTheirsFirst(&s, content: canonical, ours: ours)
                    s.identity = identity
                    s.fileState = .present
                    if let applied = s.context.apply(bytes: canonical, source: .client) {
                        s.writeGuard.record(applied.changes)
                        channel?.broadcast(applied)
                    }
                } else {
                    apply(&s, splice: splice, identity: identity)
                }
            }
        }
        if let blocked {
            for write in writes { channel?.send(.failure(write.requestID, blocked), to: write.connection) }
            return
        }
        // 2. Plan and save.
        var deferred: [PendingWrite] = []
        var retry = false
        state.withLock { s in
            let plan = WritePlan(writes.map { (ticket: $0, operation: $0.operation) }, context: s.context,
                                 assignedIDs: Set(writes.flatMap(\.assignedIDs)))
            for (write, error) in plan.refused { channel?.send(.failure(write.requestID, error), to: write.connection) }
            deferred = plan.deferred.map(\.ticket)
            let needsSave = !plan.save.isEmpty || s.context.document.newBookCount > 0
            var result: SaveResult?
            if needsSave {
                do {
                    result = try store.appendIfPossible(plan.save, onto: s.context.document, expected: s.identity)
                        ?? store.save(plan.save, onto: s.context.document, expected: s.identity)
                    s.writeRetries = 0
                } catch let error as StoreError {
                    if case .changedDuringWrite = error, s.writeRetries < 50 {
                        s.writeRetries += 1
                        logger.debug("save refused, the file changed during the write: retry \(s.writeRetries)")
                        requeueFirst(plan.accepted.map(\.ticket) + deferred)
                        deferred = []
                        retry = true
                        return
                    }
                    s.writeRetries = 0
                    logger.error("write failed: \(error)", ["BOOKS_FILE": store.configuration.path])
                    let failure = ProtocolError(.storeUnavailable, "the write failed and the file is unchanged: \(error)")
                    for (write, _) in plan.accepted { channel?.send(.failure(write.requestID, failure), to: write.connection) }
                    return
                } catch {
                    return
                }
            }
            if let result {
                logger.debug("saved (\(result.appended == nil ? "rewrite" : "append")): \(result.identity.traceDescription)")
                s.identity = result.identity
                s.fileState = .present
                // Without client writes, the save only gave ids to rows typed by hand: that
                // change is the hand edit's, so it is reported with source `file`.
                let source: ChangeSource = plan.accepted.isEmpty ? .file : .client
                let base = result.lateEdit == nil ? [] : s.context.document.bytes   // rare: keep a copy
                let applied: SequencedChangeSet?
                if let content = separateForeignEdits(&s, result) {
                    applied = s.context.apply(bytes: content, source: source, remapped: result.remapped)
                } else {
                    applied = s.context.apply(splice: result.splice, source: source, remapped: result.remapped)
                }
                if let applied {
                    channel?.broadcast(applied)
                    if source == .client { s.writeGuard.record(applied.changes) }
                    logger.info("client write: \(applied.changes.inserted.count) inserted, \(applied.changes.updated.count) updated, \(applied.changes.deleted.count) deleted",
                                ["BOOKS_SEQ": "\(applied.seq)", "BOOKS_FILE": store.configuration.path])
                }
                if let late = result.lateEdit {
                    applyLateEdit(&s, late: late, base: base, ours: result.splice)
                }
            }
            // Acknowledge only what the file now holds: a writer that overwrote the file right
            // after our write (possible with the append path) sends the writes round again.
            let landed = plan.accepted.allSatisfy { write, outcome in
                switch outcome {
                case .inserted(let books): return books.allSatisfy { s.context.book(id: $0.id) == $0 }
                case .updated(let books): return books.allSatisfy { s.context.book(id: $0.id) == $0 }
                case .deleted(let books): return books.allSatisfy { s.context.book(id: $0.id) == nil }
                }
            }
            if !landed, s.writeRetries < 50 {
                s.writeRetries += 1
                logger.notice("the file changed while a write was applied; applying the write again on top of it")
                requeueFirst(plan.accepted.map(\.ticket) + deferred)
                deferred = []
                retry = true
                return
            }
            for (write, outcome) in plan.accepted {
                let books: [Book]
                switch outcome {
                case .inserted(let inserted): books = inserted
                case .updated(let updated): books = updated
                case .deleted(let deleted): books = deleted
                }
                channel?.send(.success(write.requestID, ReplyResult(epoch: s.context.epoch, seq: s.context.seq, books: books,
                                                                   versions: books.map { s.context.version(of: $0.id) })),
                              to: write.connection)
            }
        }
        if retry {
            queue.asyncAfter(deadline: .now() + .milliseconds(5)) { self.processWritesIfAny() }
            return
        }
        if !deferred.isEmpty {
            requeueFirst(deferred)
            queue.async { self.processWritesIfAny() }
        }
        publishStatus()
    }

    /// Applies the edit another program wrote to the version of the file a save had just replaced
    /// (it opened the file an instant before the swap; see `AtomicWriteResult.lateEdit`): its
    /// change from `base` is merged with the save's change `ours` when they touch different
    /// lines, else its content stands as written (as if it had been saved right after), and the
    /// result is written and reported as a file edit. If that cannot be written, the program's
    /// content is kept in a recovery file and the error is logged: it is never silently lost.
    func applyLateEdit(_ s: inout State, late: [UInt8], base: [UInt8], ours: ByteSplice) {
        let theirs = ByteSplice(from: base, to: late)
        guard !theirs.isEmpty else { return }
        let merged = ByteSplice.mergedContent(base: base, ours: ours, theirs: theirs) ?? late
        logger.warning("another program wrote to the book file just as the daemon replaced it; its edit is applied on top",
                       ["BOOKS_FILE": store.configuration.path])
        do {
            let written = try store.writeCanonical(merged, replacing: s.context.document.bytes, expected: s.identity)
            s.identity = written.identity
            if let applied = s.context.apply(bytes: merged, source: .file) {
                channel?.broadcast(applied)
            }
            if let again = written.lateEdit, let kept = RecoveryFile.keep(again, beside: store.configuration.path) {
                logger.error("another late write to the replaced book file was kept in \(kept)", ["BOOKS_FILE": store.configuration.path])
            }
        } catch {
            // The file changed again meanwhile: that edit stands; keep this one beside it.
            let kept = RecoveryFile.keep(late, beside: store.configuration.path) ?? "nowhere (\(error))"
            logger.error("a late write to the replaced book file could not be applied (\(error)); its content was kept in \(kept)",
                         ["BOOKS_FILE": store.configuration.path])
        }
    }

    /// The file's identity when `writes` may skip re-reading the file before they are saved: they
    /// are all inserts into a text file that still has the identity (inode, size, times) it had
    /// when last read or written, with no retry, confirmation or id assignment in progress. Such a
    /// group takes the append path, and nothing is lost without the read: the append itself
    /// refuses a file whose identity changed (the group is then retried after a full read), and
    /// appending overwrites nothing, so an edit that slipped past the identity check (same size
    /// within one timestamp tick) stays in the file and is reported by its watcher event, which
    /// is handled right after this commit. A 1M-row insert then costs the append and its sync,
    /// not a 67 MB read.
    func untouchedIdentityForAppending(_ writes: [PendingWrite]) -> FileIdentity? {
        guard !writes.isEmpty, store.configuration.format == .text,
              writes.allSatisfy({ if case .insert = $0.operation { return true } else { return false } }) else { return nil }
        let known = state.withLock { s -> FileIdentity? in
            guard s.writeRetries == 0, s.fileState == .present, s.context.document.newBookCount == 0,
                  s.context.document.bytes.last == 0x0A else { return nil }
            return s.identity
        }
        guard let known, FileIdentity.of(path: store.configuration.path) == known else { return nil }
        return known
    }

    /// When someone else wrote to the file between an append's check and its read-back (an
    /// `echo >>` racing with a client insert), applies their edit first, as a file change, so that
    /// the client change set holds only the client's books. Returns the file's whole content
    /// then (to apply as the client's change); nil when exactly our rows were added.
    func separateForeignEdits(_ s: inout State, _ result: SaveResult) -> [UInt8]? {
        guard let appended = result.appended,
              result.splice != .append(appended, to: s.context.document.bytes.count) else { return nil }
        let content = result.content(basedOn: s.context.document.bytes)
        applyTheirsFirst(&s, content: content, ours: Set(result.inserted.map(\.id)))
        return content
    }

    /// Applies `content` without the rows of the books `ours` (ids of a client write in progress)
    /// as a file change; the caller then applies `content` itself as the client's change. Used
    /// when a hand edit and a client write landed in the file together.
    func applyTheirsFirst(_ s: inout State, content: [UInt8], ours: Set<String>) {
        let document = BookDocument(parsing: content, lineLimit: s.configuration.maxLineBytes,
                                    previous: s.context.document)
        let edits = ours.compactMap { id in document.lineIndex(ofBook: id).map { DocumentEdit.delete(line: $0) } }
        let theirs = edits.isEmpty ? content : document.rendering(edits)
        if let applied = s.context.apply(bytes: theirs, source: .file) {
            logger.info("a file edit raced with a client write; reported separately", ["BOOKS_SEQ": "\(applied.seq)"])
            channel?.broadcast(applied)
        }
    }

    // MARK: Status, heartbeat, watchdog, reload, stop

    /// Sends `STATUS=` to systemd with a one-line summary (books, bad lines, subscribers, last
    /// change), unless it equals the last one sent.
    func publishStatus() {
        guard notifier.isEnabled else { return }   // not under systemd: nobody reads the line
        let line = state.withLock { s -> String? in
            let stats = channel?.statistics ?? ServerStatistics()
            let last = s.context.lastChange.map { "last change seq \(s.context.seq) at \(ISO8601.format($0))" } ?? "no change yet"
            let line = "\(s.context.bookCount) books, \(s.context.document.badLineCount) bad lines, \(stats.subscribers) subscribers, \(last)"
            guard line != s.lastStatusLine else { return nil }
            s.lastStatusLine = line
            return line
        }
        if let line { _ = try? notifier.status(line) }
    }

    /// Sends `STATUS=` again unconditionally (after `READY=1`, so the line shown is current).
    func republishStatus() {
        state.withLock { $0.lastStatusLine = nil }
        publishStatus()
    }

    /// Publishes the status once the server has applied what was posted so far (its subscriber
    /// count is updated on the server thread).
    func publishStatusAfterServerCounts() {
        channel?.afterPendingCommands { [self] in queue.async { self.publishStatus() } }
    }

    /// A client went away: the subscriber count may have changed.
    func connectionClosed() {
        queue.async { self.publishStatus() }
    }

    /// Sends a heartbeat with the current seq to every subscriber.
    public func heartbeat() {
        queue.async {
            let (epoch, seq) = self.position
            self.channel?.broadcastHeartbeat(epoch: epoch, seq: seq)
        }
    }

    /// Runs `body` on the reconciler's queue; used to prove the queue is alive (watchdog) and to
    /// finish in-flight work before shutdown.
    public func onQueue(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Blocks until every write and event queued so far has been processed (a deferred
    /// comparison included).
    public func drain() {
        queue.sync {
            verifyWhenDue(now: true)
            processWritesIfAny()
        }
    }

    /// Applies a reloaded configuration: log level, writers, confirmation, heartbeat are live.
    public func reconfigure(_ configuration: DaemonConfiguration) {
        state.withLock { $0.configuration = configuration }
        writers.withLock { $0 = (configuration.writerUIDs, configuration.writerGroups) }
        logger.setLevel(configuration.logLevel)
    }
}

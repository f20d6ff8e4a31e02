import BooksCore
import BooksPlatform
import BooksProtocol
import BooksStore
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Everything one book file needs — its store, its watcher, its reconciler state machine, its
/// change log — behind the small interface the daemon and the socket server use. Nothing outside
/// an engine knows how the file is read or written.
///
/// Threads: the state machine runs on the engine's serial queue (a dispatch queue, never the
/// cooperative pool: file I/O blocks), which alone carries out its actions. The watcher's thread
/// runs file events through the queue synchronously; other threads only post work.
///
/// Guarantees:
/// - No lock the socket server's thread takes is held across disk I/O or a full-file comparison:
///   `hello` and `ping` read the published position (an atomic), writes are put in a small inbox,
///   and every other request is answered later from the queue.
/// - The position (`epoch`, `seq`) is published after the change set that made it was handed to
///   the channel, so a `hello` never reports a seq whose change a subscriber could still miss.
/// - Client writes that arrive while a commit runs are committed together in the next one.
public final class BookEngine: Sendable {
    let queue: DispatchQueue
    /// The state machine. Locked only by the queue, and only around pure code.
    let machine: Locked<ReconcilerStateMachine>
    /// Client writes waiting for the queue (the server thread appends, the queue takes all).
    let inbox = Locked<[PendingWrite]>([])
    /// The seq of the last change set handed to the channel.
    let publishedSeq = Atomic<UInt64>(0)
    /// The lineage of this engine's states (see `BookLedger.epoch`).
    public let epoch: String
    let store: any BookStore
    /// The daemon's logger with this store's `BOOKS_FILE` and `BOOKS_STORE` bound.
    let logger: Logger
    let notifier: SystemdNotifier
    let startTime = ContinuousClock.now
    /// Where replies and change sets go: the store's complete channel chain, given at
    /// construction and never replaced (nil: nowhere, in tests).
    let channel: (any ClientChannel)?
    let writers: Locked<(uids: [uid_t], groups: [gid_t])>
    let accounts: WriterAuthorization
    let watch = Locked<WatchState>(WatchState())
    /// Events from a shared watcher thread, waiting for the queue.
    let mailbox = Locked(FileEventMailbox())
    /// Read requests waiting for the queue, in fair order between connections (one job on the
    /// queue runs them one at a time; see `BookEngine+Requests`).
    let reads = Locked(ReadScheduler<PendingRead>())
    /// The store this engine serves (logs, status, NATS subjects).
    public let storeName: StoreName
    /// This store's status after the last input (see `BookEngine+Summary`).
    let summary: Locked<StoreInfo>
    let lastStatusLine = Locked<String?>(nil)
    /// Where the `STATUS=` line goes instead of systemd (set by `StoreRegistry`).
    let statusSink = Locked<(@Sendable (String) -> Void)?>(nil)
    /// Refused writes are logged at most 5 times a minute per uid.
    let refusals = Locked(LogRateLimiter())
    let settings: Locked<DaemonConfiguration>
    /// The saved history (nil: none kept), maybe still to be created; used only on the queue (see
    /// `BookEngine+History`).
    let historyHandle: EngineHistory?
    /// The open saved history (nil: none kept, or not created yet); only on the queue.
    var history: HistoryStore? { historyHandle?.store }
    /// Whether the last history write failed (logged once per failure streak).
    let historyFailing = Atomic<Bool>(false)
    /// True until `historyReady()`: due snapshots are owed, not written, while the daemon starts.
    let historyStarting = Atomic<Bool>(true)
    /// A due snapshot is owed (the journal holds everything meanwhile): written by `historyReady()`.
    let snapshotOwed = Atomic<Bool>(false)
    /// For a store that appeared while the daemon runs and started empty: the seq it started at
    /// (its books are the change sets after it); nil otherwise. Set once, by `load`.
    let appearedEmptyAtSeq = Locked<UInt64?>(nil)
    /// For a replica (`--replica`): where client writes go instead of the file (to the owner),
    /// with who sent them.
    let writeForwarder = Locked<(@Sendable (Request, ReplyTarget, PeerCredentials) -> Void)?>(nil)
    /// For a replica: its state line for `status` (set by its `ReplicaLink`).
    let replicaLine = Locked<String?>(nil)
    /// For a replica: the owner position its feed has announced (set by its `ReplicaChannelRouter`).
    let announcedPosition = Locked<(epoch: String, seq: UInt64)?>(nil)

    /// The watcher and how it watches (for `status`).
    struct WatchState: Sendable {
        var watcher: (any FileWatcher)?
        var warning: String?
    }

    /// Creates the engine of `configuration`'s book file, kept by `store`; no books until `load()`.
    /// With `history`, change sets are journaled there; with `restored` (read from it), the engine
    /// continues that context's epoch, seq, versions and change log, and `load()` reports what
    /// changed in the file meanwhile as the next change set. Replies and change sets go to
    /// `channel` (the store's complete chain; see `StoreChannels`).
    public convenience init(
        configuration: DaemonConfiguration, store: any BookStore, logger: Logger,
        notifier: SystemdNotifier = SystemdNotifier(), epoch: String = UUID().uuidString,
        history: HistoryStore? = nil, restored: BookLedger? = nil, storeName: StoreName = .default,
        channel: (any ClientChannel)? = nil
    ) {
        self.init(
            configuration: configuration, store: store, logger: logger, notifier: notifier, epoch: epoch,
            accounts: WriterAuthorization(), history: history.map(EngineHistory.init), restored: restored,
            storeName: storeName, channel: channel)
    }

    /// An engine whose saved history may be created only after readiness (see `EngineHistory`).
    convenience init(
        configuration: DaemonConfiguration, store: any BookStore, logger: Logger, notifier: SystemdNotifier,
        history: EngineHistory?, restored: BookLedger?, storeName: StoreName, channel: any ClientChannel
    ) {
        self.init(
            configuration: configuration, store: store, logger: logger, notifier: notifier,
            epoch: UUID().uuidString, accounts: WriterAuthorization(), history: history, restored: restored,
            storeName: storeName, channel: channel)
    }

    init(
        configuration: DaemonConfiguration, store: any BookStore, logger: Logger, notifier: SystemdNotifier,
        epoch: String, accounts: WriterAuthorization, history: EngineHistory? = nil, restored: BookLedger? = nil,
        storeName: StoreName = .default, channel: (any ClientChannel)? = nil
    ) {
        self.storeName = storeName
        self.channel = channel
        self.historyHandle = history
        self.accounts = accounts
        self.store = store
        self.logger = logger.bound(["BOOKS_FILE": store.configuration.path, "BOOKS_STORE": storeName.rawValue])
        self.notifier = notifier
        self.epoch = restored?.epoch ?? epoch
        queue = DispatchQueue(label: "booksd.engine." + storeName.rawValue)
        settings = Locked(configuration)
        writers = Locked((configuration.writerUIDs, configuration.writerGroups))
        let machineConfiguration = Self.machineConfiguration(configuration, store: store)
        var initial =
            restored.map { ReconcilerStateMachine(configuration: machineConfiguration, restoring: $0) }
            ?? ReconcilerStateMachine(configuration: machineConfiguration, epoch: epoch)
        initial.attribution = ReconcilerAttribution(userName: { UserNames.shared.name(of: $0) })
        machine = Locked(initial)
        publishedSeq.store(restored?.seq ?? 0, ordering: .relaxed)
        summary = Locked(
            StoreInfo(
                name: storeName.rawValue, path: store.configuration.path,
                format: store.configuration.format.rawValue, state: "missing", bookCount: 0, badLines: 0,
                epoch: self.epoch, seq: restored?.seq ?? 0))
    }

    static func machineConfiguration(
        _ configuration: DaemonConfiguration,
        store: any BookStore
    ) -> ReconcilerStateMachine.Configuration {
        ReconcilerStateMachine.Configuration(
            path: store.configuration.path, format: store.configuration.format,
            confirmationDelay: .milliseconds(configuration.confirmationMilliseconds),
            maxLineBytes: configuration.maxLineBytes, changeLogRetention: configuration.changeLogRetention,
            historyMaxAge: configuration.historyMaxAgeSeconds > 0 ? Double(configuration.historyMaxAgeSeconds) : nil,
            historyMaxBytes: configuration.historyMaxBytes > 0 ? configuration.historyMaxBytes : nil)
    }

    /// The current lineage and seq; lock-free, from any thread.
    public var position: (epoch: String, seq: UInt64) {
        (epoch, publishedSeq.load(ordering: .acquiring))
    }

    /// The position its subscribers see (`hello`, `subscribed`, notices): `position`, or for a
    /// replica the owner position its feed has announced.
    public var feedPosition: (epoch: String, seq: UInt64) {
        announcedPosition.withLock { $0 } ?? position
    }

    /// Reads the file synchronously (before the daemon is ready): repairs a torn append, removes
    /// temporary files of an interrupted write (keeping, in a recovery file, any that may hold
    /// someone's edit), loads the books, gives ids to hand-typed rows. `listing`: the names in the
    /// file's directory that may be temporaries, when the caller listed it (many stores, one folder).
    /// `appearing`: the store appeared while the daemon runs; it starts with no books and its
    /// file's books are its first change set (see ``ReconcilerInput/appeared(_:)``).
    public func load(listing: [String]? = nil, appearing: Bool = false) {
        queue.sync {
            let path = store.configuration.path
            if let repaired = AppendWriter.recover(path: path, listing: listing) { logger.warning(repaired) }
            let leftovers = AtomicFileWriter.cleanUpStaleTemporaries(beside: path, listing: listing)
            if let message = leftovers.logMessage {
                logger.log(leftovers.kept.isEmpty ? .notice : .warning, message)
            }
            beginHistory(resuming: true)
            let conflicts = loadConflicts()
            if !conflicts.isEmpty { run(.conflictsLoaded(conflicts)) }
            loadFileVersions()
            if appearing {
                let (seq, empty) = machine.withLock { ($0.context.seq, $0.context.bookCount == 0) }
                appearedEmptyAtSeq.withLock { $0 = empty ? seq : nil }
                run(.appeared(store.fetch()))
            } else {
                run(.loaded(store.fetch()))
            }
            beginHistory(resuming: false)
        }
    }

    /// A watcher event: handled on the caller's thread (the watcher's own) once the queue is free,
    /// so events are applied one at a time and in order, without waking another thread.
    public func fileEvent(_ event: FileWatchEvent) {
        queue.sync { run(.fileEvent(event)) }
    }

    /// The store stops being served: its books are deleted in a last change set (see
    /// ``ReconcilerInput/retired``). Call after `stopWatching()` and `drain()`.
    public func retire() {
        queue.sync { run(.retired) }
    }

    /// Blocks until every read, write and event queued so far was processed (a deferred
    /// comparison included).
    public func drain() {
        queue.sync {
            runWaitingReads()
            run(.drain(takeInbox()))
        }
    }

    /// Runs `body` on the engine's queue (watchdog probes).
    public func onQueue(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Sends a heartbeat with the current seq to every subscriber (in order with change sets).
    public func heartbeat() {
        queue.async {
            let (epoch, seq) = self.position
            self.channel?.broadcastHeartbeat(epoch: epoch, seq: seq)
        }
    }

    /// Applies a reloaded configuration: writers, confirmation delay and log level are live.
    public func reconfigure(_ configuration: DaemonConfiguration) {
        settings.withLock { $0 = configuration }
        writers.withLock { $0 = (configuration.writerUIDs, configuration.writerGroups) }
        accounts.forgetGroups()  // /etc/group may have changed: look members up again
        logger.setLevel(configuration.logLevel)
        let machineSettings = Self.machineConfiguration(configuration, store: store)
        queue.async { self.machine.withLock { $0.reconfigure(machineSettings) } }
    }

    func takeInbox() -> [PendingWrite] {
        inbox.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    // MARK: Running the state machine

    /// Feeds `input` to the state machine and carries out its actions in order; an action's
    /// answer is fed back at once, and its actions run before the rest (depth first).
    func run(_ input: ReconcilerInput) {
        dispatchPrecondition(condition: .onQueue(queue))
        let seqBefore = machine.withLock { $0.context.seq }
        var stack = Array(machine.withLock { $0.handle(input) }.reversed())
        while !stack.isEmpty {
            // The action is consumed by `perform`, so a document it carries is released before
            // the answer is applied (the context then changes in place, without a copy).
            guard let answer = perform(stack.removeLast()) else { continue }
            stack.append(contentsOf: machine.withLock { $0.handle(answer) }.reversed())
        }
        // Members outside id|name|author (JSON) edited alone: reported once the file's own
        // changes are applied, except for books those changes already reported.
        let edited = store.takeUnknownMemberEdits()
        if !edited.isEmpty { run(.unknownMembersEdited(edited, after: seqBefore)) }
        persistHistory()
        publishSummary()
    }
}

import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import CLinux
import Dispatch
import FoundationEssentials
import Synchronization

/// The thin shell of one replica (`--replica NAME=PATH`): keeps the local file of the store
/// `NAME` a full copy of the store another booksd owns, and sends its hand edits to that owner.
///
/// The decisions are `ReplicaStateMachine`'s; this shell carries out its actions: the local file
/// is written through the engine's ordinary client-write path (`acceptReplicated`), the record is
/// kept in the store's state directory before anything it implies is sent, edits go to the owner
/// as conditional `insert`/`save` requests on `<prefix>.<store>.api`, and the owner's stream is
/// read on a thread of its own (`booksd-replica-feed`).
///
/// Threads: `booksd-replica` runs the machine and waits for the network (one request at a time,
/// 5 s at most) and for the disk when it keeps what changed in its record (`ReplicaRecordStore`,
/// its own files in the state directory, not on the engine's queue); the engine never waits for
/// it (its change sets and replies are appended to a small inbox).
final class ReplicaLink: Sendable {
    /// The reply target of the replica's own local writes.
    static let connectionID = ReplyTarget(.replica, 1)

    let engine: BookEngine
    let connection: NATSConnection
    let prefix: String
    let logger: Logger
    let fields: [String: String]
    let inbox = Locked<[ReplicaInput]>([])
    let wake = DispatchSemaphore(value: 0)
    let stopped = Atomic<Bool>(false)
    let machine = Locked<ReplicaStateMachine?>(nil)
    /// What the feed thread needs: the position the record is at, and whether to read a snapshot.
    let position = Locked<(epoch: String?, seq: UInt64, wantsSnapshot: Bool)>((nil, 0, false))
    let threads = Locked<[DedicatedThread]>([])
    /// The owner's change sets published after the last one the feed read (the feed's thread
    /// writes it, the status line reads it).
    let ownerBacklog = Atomic<UInt64>(0)
    /// What the machine asked to keep, not written yet: written once per batch of inputs, and
    /// always before a send (only the machine's thread uses it).
    let unsaved = Locked<ReplicaRecordUpdate?>(nil)
    /// Where the record is kept (set by `start`; only the machine's thread writes through it).
    let records = Locked<ReplicaRecordStore?>(nil)
    /// The replica stage of the engine's channel chain (set by `attach`).
    let router = Locked<ReplicaChannelRouter?>(nil)
    /// What the feed owes its subscribers, oldest first (only the machine's thread uses it).
    let unannounced = Locked<[ReplicaAnnouncement]>([])
    /// What the feed announced, kept for a restart (set by `start`; only the machine's thread
    /// writes through it).
    let feedJournal = Locked<ReplicaFeedJournal?>(nil)
    /// Requests for the owner's history queued or asking now (see `queueHistoryRead`).
    let historyWaiting = Atomic<Int>(0)
    /// Who made the hand edits not sent yet (noted as their change sets arrive, read by `send`).
    let editActors = Locked<ReplicaEditActors>(ReplicaEditActors())
    /// Called once, when the feed first has an owner position (restored at start, or announced).
    let firstPosition = Locked<(@Sendable () -> Void)?>(nil)

    var store: String { engine.storeName.rawValue }
    var apiSubject: String { "\(prefix).\(store).api" }

    init(engine: BookEngine, connection: NATSConnection, prefix: String, logger: Logger) {
        self.engine = engine
        self.connection = connection
        self.prefix = prefix
        self.logger = logger
        fields = ["BOOKS_STORE": engine.storeName.rawValue]
    }

    /// Routes the engine's change sets and the replies to the replica's writes here: links this
    /// replica to the stage the engine's chain was built with (see `StoreChannels`).
    func attach() {
        guard let wrapped = engine.channel as? ReplicaChannelRouter, wrapped.link(self) else { return }
        router.withLock { $0 = wrapped }
    }

    /// Loads the record and starts the machine and the feed.
    /// - Throws: when the record cannot be read or there is no state directory, or no thread.
    func start() throws {
        let record = try loadRecord()
        machine.withLock { $0 = ReplicaStateMachine(record: record) }
        restoreFeed(record)
        position.withLock { $0 = (record.epoch, record.seq, false) }
        let loop = try DedicatedThread.start(name: "booksd-replica") { [self] in run() }
        let feed = try DedicatedThread.start(name: "booksd-replica-feed") { [self] in followOwner() }
        threads.withLock { $0 = [loop, feed] }
        forwardClientWrites()
        logger.notice(
            "replica of store '\(store)' (\(record.replicaID)): following \(prefix).\(store).changes from "
                + (record.epoch.map { "\($0):\(record.seq)" } ?? "the owner's books"),
            fields)
    }

    /// Stops both threads (they finish within about a second).
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        for thread in threads.withLock({ $0 }) { thread.join() }
    }

    func post(_ input: ReplicaInput) {
        if case .localChanged(let change) = input { editActors.withLock { $0.note(change) } }
        inbox.withLock { $0.append(input) }
        wake.signal()
    }

    /// A reply to one of the replica's local writes (from the engine's channel).
    func localWriteAnswered(_ reply: Reply) {
        guard let id = reply.id, id.hasPrefix("replica:"), let token = UInt64(id.dropFirst("replica:".count)) else {
            return
        }
        if !reply.ok, let error = reply.error {
            logger.info("replica: a local write of the owner's books was refused (\(error)); retried", fields)
        }
        post(.localWriteFinished(token: token, succeeded: reply.ok))
    }

    private func loadRecord() throws -> ReplicaRecord {
        var store = ReplicaRecordStore(directory: try engine.replicaStateDirectory())
        let record = try store.load()
        records.withLock { [store] in $0 = store }
        return record
    }

    // MARK: The machine's thread

    private func run() {
        let (seq, books) = engine.replicaBooks()
        handle(.localLoaded(seq: seq, books: books))
        finishBatch()
        var wasOnline: Bool?
        var lastRetry = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            _ = wake.wait(timeout: .now() + .milliseconds(250))
            let online = connection.isConnected
            if online != wasOnline {
                if wasOnline != nil {
                    logger.notice(
                        online ? "replica: NATS is back" : "replica: NATS is unreachable; edits are queued", fields)
                }
                wasOnline = online
                handle(.connectivity(online: online, at: Date()))
            }
            for input in inbox.withLock({ all -> [ReplicaInput] in
                defer { all.removeAll() }
                return all
            }) {
                handle(input)
            }
            if ContinuousClock.now - lastRetry >= .seconds(1) {
                lastRetry = .now
                handle(.retry)
            }
            finishBatch()
        }
    }

    /// Keeps what the last inputs changed in the record and publishes the status line (once per
    /// batch of inputs).
    private func finishBatch() {
        _ = flush()
        announceHeld()
        let backlog = ownerBacklog.load(ordering: .relaxed)
        let line = machine.withLock { $0?.statusLine(ownerBacklog: backlog) }
        engine.replicaLine.withLock { $0 = line }
    }

    /// Writes the record waiting to be kept, if any; false when it cannot be written.
    private func flush() -> Bool {
        guard let update = unsaved.withLock({ $0.take() }) else { return true }
        if persist(update) { return true }
        unsaved.withLock { $0 = $0.map { update.followed(by: $0) } ?? update }  // tried again with the next batch
        return false
    }

    /// Runs `input` through the machine and carries out its actions in order.
    private func handle(_ input: ReplicaInput) {
        let before = machine.withLock { ($0?.record.epoch, $0?.record.seq ?? 0) }
        var actions = machine.withLock { $0?.handle(input) ?? [] }
        noteApplied(input, before: before)
        while !actions.isEmpty {
            switch actions.removeFirst() {
            case .persist(let update):
                unsaved.withLock { $0 = $0.map { $0.followed(by: update) } ?? update }
            case .writeLocal(let write):
                engine.acceptReplicated(write, connection: Self.connectionID)
            case .send(let write):
                let outcome = flush() ? send(write) : .failed("the replica's record cannot be kept")
                actions.append(
                    contentsOf: machine.withLock { $0?.handle(.sendFinished(token: write.token, outcome)) ?? [] })
            case .needSnapshot(let reason):
                logger.notice("replica: reading the owner's books again: \(reason)", fields)
                position.withLock { $0.wantsSnapshot = true }
            case .conflicts(let conflicts):
                for conflict in conflicts {
                    logger.warning(
                        "replica: book \(conflict.id) was changed here and on the owner (\(conflict.field)): this "
                            + "host's value \(conflict.mineValue ?? "(deleted)") stands, the owner's was "
                            + "\(conflict.theirsValue ?? "(deleted)")",
                        fields)
                }
            }
        }
    }

    private func persist(_ update: ReplicaRecordUpdate) -> Bool {
        do {
            guard var store = records.withLock({ $0 }) else { return false }
            defer { records.withLock { [store] in $0 = store } }  // its generation moved even if it threw
            try store.keep(update, whole: machine.withLock { $0?.record } ?? ReplicaRecord(replicaID: ""))
            position.withLock {
                $0.epoch = update.epoch
                $0.seq = update.seq
            }
            // A whole record follows a first copy or the owner's books read again (and a write of
            // them): what their reading and writing freed goes back to the system, not kept by
            // malloc for this thread's and the engine's arenas (~110 MB of 1 GB at 1M books).
            if update.whole { malloc_trim(0) }
            return true
        } catch {
            logger.error("replica: cannot keep the record (\(error)); nothing is sent until it can", fields)
            return false
        }
    }
}

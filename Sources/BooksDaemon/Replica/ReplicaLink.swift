import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
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
/// 5 s at most) and for the engine's queue when persisting; the engine never waits for it (its
/// change sets and replies are appended to a small inbox).
final class ReplicaLink: Sendable {
    /// Connection ids of the replica's own local writes: both top bits set (a NATS request's
    /// id has only the top one, socket connections count up from 1).
    static let connectionID = ConnectionID(raw: 1 << 63 | 1 << 62)

    /// Whether `connection` is the replica's own.
    static func owns(_ connection: ConnectionID) -> Bool { connection == connectionID }

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

    var store: String { engine.storeName.rawValue }
    var apiSubject: String { "\(prefix).\(store).api" }

    init(engine: BookEngine, connection: NATSConnection, prefix: String, logger: Logger) {
        self.engine = engine
        self.connection = connection
        self.prefix = prefix
        self.logger = logger
        fields = ["BOOKS_STORE": engine.storeName.rawValue]
    }

    /// Routes the engine's change sets and the replies to the replica's writes here.
    func attach() {
        guard let local = engine.channel else { return }
        engine.attach(ReplicaChannelRouter(local: local, link: self))
    }

    /// Loads the record and starts the machine and the feed.
    /// - Throws: when the record cannot be read or there is no state directory, or no thread.
    func start() throws {
        let record = try loadRecord()
        machine.withLock { $0 = ReplicaStateMachine(record: record) }
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
        guard let bytes = try engine.loadReplicaRecord() else {
            let record = ReplicaRecord(replicaID: UUID().uuidString)
            try engine.storeReplicaRecord(try Array(JSONEncoder().encode(record)))
            return record
        }
        return try JSONDecoder().decode(ReplicaRecord.self, from: Data(bytes))
    }

    // MARK: The machine's thread

    private func run() {
        let (seq, books) = engine.replicaBooks()
        handle(.localLoaded(seq: seq, books: books))
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
        }
    }

    /// Runs `input` through the machine and carries out its actions in order.
    private func handle(_ input: ReplicaInput) {
        var actions = machine.withLock { $0?.handle(input) ?? [] }
        var persisted = true
        while !actions.isEmpty {
            switch actions.removeFirst() {
            case .persist(let record):
                persisted = persist(record)
            case .writeLocal(let write):
                engine.acceptReplicated(write, connection: Self.connectionID)
            case .send(let write):
                let outcome = persisted ? send(write) : .failed("the replica's record cannot be kept")
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
        let line = machine.withLock { $0?.statusLine }
        engine.replicaLine.withLock { $0 = line }
    }

    private func persist(_ record: ReplicaRecord) -> Bool {
        do {
            try engine.storeReplicaRecord(try Array(JSONEncoder().encode(record)))
            position.withLock {
                $0.epoch = record.epoch
                $0.seq = record.seq
            }
            return true
        } catch {
            logger.error("replica: cannot keep the record (\(error)); nothing is sent until it can", fields)
            return false
        }
    }
}

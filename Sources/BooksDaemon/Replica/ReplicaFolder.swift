import BooksNATS
import BooksPlatform
import FoundationEssentials
import Glibc
import Synchronization

/// The replica folder (`replica_folder = DIR`, `--replica-dir DIR`): every store the owner
/// booksd publishes under `nats_prefix` (its stream `<prefix>_<store>_changes`) gets a replica
/// file in DIR, `<store>.txt` (or `<store>.json` when that file is there), served and kept in
/// sync like a `--replica` (`ReplicaLink`).
///
/// Guarantees: the streams are listed once a second while NATS is connected (on the thread
/// `booksd-replica-folder`, never on an engine's queue), so a store the owner publishes later
/// gets its replica within about a second of its stream; a store added is announced to
/// subscribers (`store-added`) once its file holds an owner position, at that position; a store
/// is added once (a name that is not a valid store name, or one another store of this booksd
/// already has, is logged once and skipped); a replica's file is never removed (a store the
/// owner drops keeps its last copy).
final class ReplicaFolder: Sendable {
    let path: String
    let registry: StoreRegistry
    let connection: NATSConnection
    let prefix: String
    let logger: Logger
    /// Told a store's name before it is added (the owner side must not publish it).
    let willAdd: @Sendable (StoreName) -> Void
    /// Store names already handled (replicated, or refused and logged).
    let known = Locked<Set<String>>([])
    let links = Locked<[ReplicaLink]>([])
    let stopped = Atomic<Bool>(false)
    let thread = Locked<DedicatedThread?>(nil)

    init(
        path: String, registry: StoreRegistry, connection: NATSConnection, prefix: String, logger: Logger,
        willAdd: @escaping @Sendable (StoreName) -> Void
    ) {
        self.path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.registry = registry
        self.connection = connection
        self.prefix = prefix
        self.logger = logger
        self.willAdd = willAdd
    }

    /// Starts listing the owner's stores.
    /// - Throws: when the thread cannot start.
    func start() throws {
        let started = try DedicatedThread.start(name: "booksd-replica-folder") { [self] in run() }
        thread.withLock { $0 = started }
        logger.notice("replica folder \(path): a replica of every store published under '\(prefix)'")
    }

    /// Stops listing and stops every replica it started.
    func stop() {
        stopped.store(true, ordering: .releasing)
        thread.withLock { $0 }?.join()
        for link in links.withLock({ $0 }) { link.stop() }
    }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            if connection.isConnected, let stores = publishedStores() {
                for store in stores where known.withLock({ $0.insert(store).inserted }) { add(store) }
            }
            var pause = timespec(tv_sec: 1, tv_nsec: 0)
            nanosleep(&pause, nil)
        }
    }

    /// The stores with a stream under the prefix, or nil when JetStream cannot say.
    private func publishedStores() -> [String]? {
        guard let names = try? connection.jetStream().streamNames() else { return nil }
        return Self.stores(inStreams: names, prefix: prefix)
    }

    /// The store names of the streams `<prefix>_<store>_changes` among `names`, sorted.
    static func stores(inStreams names: [String], prefix: String) -> [String] {
        let (head, tail) = ("\(prefix)_", "_changes")
        return names.filter { $0.hasPrefix(head) && $0.hasSuffix(tail) && $0.count > head.count + tail.count }
            .map { String($0.dropFirst(head.count).dropLast(tail.count)) }.sorted()
    }

    /// Creates (if missing) and serves the replica of `store`, then starts following its owner.
    private func add(_ store: String) {
        let fields = ["BOOKS_STORE": store]
        do {
            let name = try StoreName(store)
            let json = "\(path)/\(store).json"
            let spec =
                access(json, F_OK) == 0
                ? StoreSpec(name: name, path: json, format: .json)
                : StoreSpec(name: name, path: "\(path)/\(store).txt", format: .text)
            try ReplicaFiles.create(spec)
            willAdd(name)
            // Announced (`store-added`) once the replica's feed is at an owner position, and at it.
            let engine = try registry.add(spec, appearing: true, announced: false)
            let link = ReplicaLink(engine: engine, connection: connection, prefix: prefix, logger: logger)
            link.attach()
            link.firstPosition.withLock { [registry] in $0 = { registry.announce(name) } }
            try link.start()
            links.withLock { $0.append(link) }
            logger.notice("replica folder: store '\(store)' is replicated in \(spec.path)", fields)
        } catch {
            logger.error("replica folder: store '\(store)' is not replicated: \(error)", fields)
        }
    }
}

/// Creating a replica's file.
enum ReplicaFiles {
    /// Creates `spec`'s file empty (`[]` for JSON) unless it exists; its books then come from
    /// the owner.
    /// - Throws: `.cannotCreate` when it can neither be created nor is there.
    static func create(_ spec: StoreSpec) throws(ReplicaError) {
        let fd = open(spec.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            if errno == EEXIST { return }
            throw .cannotCreate(path: spec.path, errno: errno)
        }
        if spec.format == .json { _ = write(fd, "[]\n", 3) }
        fsync(fd)
        close(fd)
    }
}

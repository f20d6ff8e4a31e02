import BooksNATS
import BooksPlatform
import BooksProtocol
import Dispatch

/// Every store's NATS parts: one publisher (on the shared publishing threads), one request
/// responder and one owner lease per store, all on the daemon's one shared connection; stores added or removed
/// at run time (the watched folder) get or lose theirs.
///
/// Guarantees:
/// - Each store publishes to its own stream, subjects and bucket (`NATSNaming` for the store),
///   with its own bounded hand-over list: one store's backlog never delays another store's
///   publishing; a slow NATS call delays only the stores sharing its publishing thread (at most
///   4 threads, `NATSPublishingThreads`), never any store's local service.
/// - A store NATS cannot name (see `problem(with:)`) is served locally only, logged once.
/// - Adding and removing run on the serial queue `booksd.nats.stores`, in the order the registry
///   reported them, never on the thread that added or removed the store.
final class NATSStoreLinks: Sendable {
    let shared: NATSSharedConnection
    let settings: NATSSettings
    let maxRequestBytes: Int
    let logger: Logger
    let links = Locked<[StoreName: Link]>([:])
    /// Set by `stop(drain:)` (on `queue`): a store added later is not linked.
    let stopped = Locked(false)
    let queue = DispatchQueue(label: "booksd.nats.stores")
    /// Stores added at run time that are replicas (`ReplicaFolder`): never published from here.
    let replicas = Locked<Set<StoreName>>([])

    /// The NATS parts of one store.
    struct Link: Sendable {
        let publisher: NATSPublisher
        let responder: NATSRequestResponder
        /// Set by the first `start(_:)` (a store is started once).
        var started = false
    }

    init(shared: NATSSharedConnection, settings: NATSSettings, maxRequestBytes: Int, logger: Logger) {
        self.shared = shared
        self.settings = settings
        self.maxRequestBytes = maxRequestBytes
        self.logger = logger
    }

    /// Links `engine`'s NATS stage (the `NATSChannelRouter` its channel chain was built with, see
    /// `StoreChannels`) to a publisher and a responder of its own; nothing is published until
    /// `start(_:)`. Returns false for a store NATS cannot name, a replica (its chain has no NATS
    /// stage) or one already linked.
    /// - Throws: `NATSError` for a conflicting existing stream (checked now only with `checkStream`).
    @discardableResult
    func attach(_ engine: BookEngine, checkStream: Bool) throws(NATSError) -> Bool {
        let name = engine.storeName
        if let problem = Self.problem(with: name) {
            storeLogger(name).error("store '\(name)' is not published to NATS: \(problem); served locally")
            return false
        }
        guard links.withLock({ $0[name] }) == nil, let stage = engine.channel as? NATSChannelRouter, !stage.isLinked
        else { return false }
        let publisher = try NATSPublisher(
            settings: settings, store: name.rawValue, source: engine, logger: logger, shared: shared,
            checkStream: checkStream)
        let responder = NATSRequestResponder(
            connection: shared.connection, naming: publisher.naming, allowWrites: settings.allowWrites,
            maxRequestBytes: maxRequestBytes, logger: logger)
        stage.link(publisher: publisher, responder: responder)
        links.withLock { $0[name] = Link(publisher: publisher, responder: responder) }
        return true
    }

    /// The daemon's logger bound to the store `name`'s `BOOKS_STORE`.
    func storeLogger(_ name: StoreName) -> Logger { logger.bound(["BOOKS_STORE": name.rawValue]) }

    /// Why NATS cannot carry the store `name`, or nil. `.` would split the subject token (and is
    /// not allowed in stream and bucket names); a name ending in `_owner` would make the store's
    /// bucket the owner-lease bucket of the store named without that suffix.
    static func problem(with name: StoreName) -> String? {
        if !NATSNaming.isValidName(name.rawValue) {
            return "its name holds '.', which NATS subjects, streams and buckets cannot carry (use letters, digits, "
                + "'_' and '-' only)"
        }
        if name.rawValue.hasSuffix("_owner") {
            return "a name ending in '_owner' would share its bucket with another store's owner lease"
        }
        return nil
    }

    /// Starts publishing `engine`'s store from its position and answering its requests (only
    /// while this booksd owns the store, see `NATSOwnerLease`). Does nothing for a store not
    /// linked or already started.
    func start(_ engine: BookEngine) throws {
        let link = links.withLock { all -> Link? in
            guard let link = all[engine.storeName], !link.started else { return nil }
            all[engine.storeName]?.started = true
            return link
        }
        guard let link else { return }
        link.responder.start(engine: engine)
        link.publisher.onOwnershipChange { [responder = link.responder] owner in responder.setActive(owner) }
        try link.publisher.start(
            startSeq: engine.position.seq, beganEmpty: engine.appearedEmptyAtSeq.withLock { $0 } == 0)
    }

    /// Follows `registry`: a store added later is linked and started, a removed one stops.
    func follow(_ registry: StoreRegistry) {
        // The registry lives as long as the daemon: holding it here leaks nothing.
        registry.observe { [self, registry] event in
            queue.async { [self] in
                switch event {
                case .added(let status):
                    guard let engine = registry.engine(named: status.name) else { return }
                    link(engine)
                case .removed(let name, _):
                    unlink(name)
                }
            }
        }
    }

    /// Stops every store's NATS parts at shutdown, in this order: each responder unsubscribes
    /// (no request is taken from now on); `drain` runs (the engines finish what they queued:
    /// the requests taken before are answered, their change sets offered to the publishers);
    /// those replies go out; then each publisher runs its last round (everything offered is
    /// published, or, when NATS fails, left in the change log for the next start's catch-up),
    /// gives its lease up and stops. A store added after this is not linked.
    func stop(drain: () -> Void) {
        // After any add or remove the registry reported before.
        queue.sync { stopped.withLock { $0 = true } }
        let all = links.withLock { links in
            defer { links.removeAll() }
            return Array(links.values)
        }
        for link in all {
            link.publisher.onOwnershipChange { _ in }
            link.responder.stop()
        }
        drain()
        for link in all { link.responder.finishReplies() }
        for link in all { link.publisher.stop() }
    }

    /// Marks `name` a replica before it is added: its channel chain gets the replica stage, not
    /// the NATS one, and it is not linked when the registry reports it.
    func markReplica(_ name: StoreName) { replicas.withLock { _ = $0.insert(name) } }

    /// Whether `name` was marked a replica (`markReplica`).
    func isReplica(_ name: StoreName) -> Bool { replicas.withLock { $0.contains(name) } }

    /// Links and starts a store added at run time; failures are logged (the store serves locally).
    private func link(_ engine: BookEngine) {
        if stopped.withLock({ $0 }) { return }
        guard !replicas.withLock({ $0.contains(engine.storeName) }) else { return }
        let logger = storeLogger(engine.storeName)
        do {
            guard try attach(engine, checkStream: false) else { return }
            try start(engine)
            logger.notice(
                "NATS: store '\(engine.storeName)' added: publishing to \(settings.prefix).\(engine.storeName).changes")
        } catch {
            unlink(engine.storeName)
            logger.error("store '\(engine.storeName)' is not published to NATS: \(error)")
        }
    }

    /// Stops a removed store's responder and publisher (what it had not published stays in its
    /// change log; its publisher gives the lease up, see `NATSOwnerLease.release`).
    private func unlink(_ name: StoreName) {
        guard let link = links.withLock({ $0.removeValue(forKey: name) }) else { return }
        link.publisher.onOwnershipChange { _ in }
        link.responder.setActive(false)
        link.publisher.stop()
        storeLogger(name).notice("NATS: store '\(name)' removed: no longer published")
    }
}

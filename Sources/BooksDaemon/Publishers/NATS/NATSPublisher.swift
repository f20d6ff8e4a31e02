import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import Dispatch
import Synchronization

/// Publishes one store's change sets to JetStream and mirrors its books into a key-value bucket,
/// on one of the daemon's few publishing threads (`booksd-nats`, ``NATSPublishingThreads``),
/// never in the way of the engine.
///
/// Guarantees:
/// - `offer(_:)` never blocks and never waits for NATS: it appends to a bounded hand-over list
///   under a leaf lock (or, when full, only records the seq: the change log fills the gap later).
/// - The decisions are `NATSPublisherStateMachine`'s (order, no gap, exactly once in the stream,
///   catch-up, snapshots); this shell only carries out its actions and feeds back the answers.
/// - Every NATS call and every wait for the engine's queue happens on the publisher's thread.
///   That thread is shared with other stores' publishers: a slow NATS call delays the stores
///   on its thread, never local service.
public final class NATSPublisher: Sendable {
    let naming: NATSNaming
    let settings: NATSSettings
    let source: any NATSPublisherSource
    /// Bound to the store's `BOOKS_NATS_STREAM`.
    let logger: Logger
    let connection: NATSConnection
    let inbox = NATSPublisherInbox()
    /// Whether `start` handed the publisher to a thread (`stop` then waits for `finished`).
    let started = Atomic<Bool>(false)
    /// Signalled by the publishing thread once the loop returned after `stop`.
    let finished = DispatchSemaphore(value: 0)
    /// The seq the stream is known to hold (for `status` and tests); 0 before the first publish.
    let streamSeq = Atomic<UInt64>(0)

    /// The connection this publisher shares with the daemon's other stores.
    let shared: NATSSharedConnection

    /// Connects (in the background: an unreachable server is retried, not an error) and checks
    /// the stream when the server answers at once.
    ///
    /// - Throws: `NATSError` for unusable options (a credentials or TLS file that cannot be read)
    ///   and for an existing stream whose configuration conflicts with `settings`.
    public convenience init(
        settings: NATSSettings, store: String, source: any NATSPublisherSource, logger: Logger
    ) throws(NATSError) {
        try self.init(
            settings: settings, store: store, source: source, logger: logger,
            shared: NATSSharedConnection(settings: settings, logger: logger), checkStream: true)
    }

    /// A publisher for `store` on the daemon's shared connection. With `checkStream`, checks the
    /// stream now when the server answers (a store configured at start: a conflict stops booksd
    /// before it says it is ready); otherwise the publisher's thread checks it (a store added at
    /// run time: a conflict is logged and retried, never blocking the caller).
    ///
    /// - Throws: `NATSError` for an existing stream whose configuration conflicts with `settings`.
    public init(
        settings: NATSSettings, store: String, source: any NATSPublisherSource, logger: Logger,
        shared: NATSSharedConnection, checkStream: Bool
    ) throws(NATSError) {
        self.settings = settings
        self.naming = NATSNaming(prefix: settings.prefix, store: store)
        self.source = source
        // Every record of the publishing loop carries its stream (the connection's do not).
        self.logger = logger.bound(["BOOKS_NATS_STREAM": naming.streamName])
        self.shared = shared
        connection = shared.connection
        shared.register(inbox)
        if checkStream, connection.isConnected {
            // Any other failure (no JetStream, no permission) is logged and retried by the thread.
            do throws(NATSError) {
                try NATSStreamSetup(naming: naming, settings: settings).ensureStream(connection.jetStream())
            } catch  where error.isConflict {
                shared.unregister(inbox)
                throw error
            } catch {
                logger.error("NATS: \(error); serving locally and retrying in the background")
            }
        }
    }

    /// Starts the publishing thread; the engine is at `startSeq`. `beganEmpty`: the engine's lineage
    /// began with no books at seq 0 (a store that appeared): an empty stream gets its change sets.
    public func start(startSeq: UInt64, beganEmpty: Bool = false) throws(DedicatedThreadError) {
        let machine = NATSPublisherStateMachine(
            configuration: .init(
                epoch: source.epoch, bufferCapacity: settings.bufferCapacity, batchLimit: settings.batchLimit,
                beganEmpty: beganEmpty),
            startSeq: startSeq)
        let worker = try shared.publishing.run(
            NATSPublisherStart(publisher: self, machine: machine, initiallyConnected: connection.isConnected))
        started.store(true, ordering: .releasing)
        inbox.wake { [weak self, worker] in if let self { worker.ready(self) } }
    }

    /// Told (on the publisher's thread) when this booksd takes or loses the store's lease.
    let ownershipHandler = Locked<(@Sendable (Bool) -> Void)?>(nil)

    /// Runs `handler` whenever ownership of the store changes (requests are answered only by the owner).
    public func onOwnershipChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        ownershipHandler.withLock { $0 = handler }
    }

    func ownershipChanged(_ owner: Bool) {
        ownershipHandler.withLock { $0 }?(owner)
    }

    /// Hands a change set over without blocking (called on the engine's queue).
    public func offer(_ change: SequencedChangeSet) {
        inbox.offer(change, capacity: settings.bufferCapacity)
    }

    /// Stops the thread (what is not yet published stays for the next start's catch-up).
    public func stop() {
        shared.unregister(inbox)
        inbox.stop()
        if started.exchange(false, ordering: .acquiringAndReleasing) { finished.wait() }
    }
}

/// A weak reference to the connection for its own event handler (which is created before it).
final class WeakConnection: Sendable {
    private struct Reference: Sendable { weak var connection: NATSConnection? }
    private let reference = Locked(Reference())

    var connection: NATSConnection? { reference.withLock { $0.connection } }
    func set(_ connection: NATSConnection) { reference.withLock { $0.connection = connection } }
}

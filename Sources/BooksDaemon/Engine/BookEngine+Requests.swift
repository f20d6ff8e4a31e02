import BooksCore
import BooksProtocol
import Dispatch
import FoundationEssentials
import Glibc

/// A read request waiting for the engine's queue.
struct PendingRead: Sendable {
    var request: Request
    var environment: ReadEnvironment
}

/// Requests from the socket server (through ``StoreRouter``), taken on its thread without waiting
/// for a disk. Reads run one at a time on the engine's queue in fair order between connections
/// (``ReadScheduler``): a connection sending costly queries waits behind its own, not another's
/// `get`.
extension BookEngine {
    /// A client that followed this store went away: the subscriber count may have changed.
    public func connectionClosed(_ connection: ReplyTarget) {
        _ = reads.withLock { $0.drop(connection) }
        guard notifier.isEnabled else { return }
        queue.async { self.publishStatus() }
    }

    /// Takes a request (on the server thread; answers later, except `ping`, answered at once from
    /// the published position). Writes are checked, authorized and given ids here, then wait in
    /// the inbox for the next group commit; reads are answered from the engine's queue, in fair
    /// order between connections.
    public func handle(_ request: Request, from connection: ReplyTarget, peer: PeerCredentials) {
        var request = request
        if request.op == .subscribe, let channel { request = channel.subscribeRequest(request, from: connection) }
        if forwardsToOwner(request, from: connection, peer: peer) { return }
        switch request.op {
        case .insert, .update, .delete, .save:
            if let forward = writeForwarder.withLock({ $0 }) {
                forwardWrite(request, from: connection, peer: peer, to: forward)
            } else {
                accept(write: request, from: connection, peer: peer)
            }
        case .resolve:
            accept(resolve: request, from: connection, peer: peer)
        case .undo:
            accept(undo: request, from: connection, peer: peer)
        case .ping:
            let (epoch, seq) = feedPosition
            channel?.send(.success(request.id, ReplyResult(epoch: epoch, seq: seq)), to: connection)
        default:
            let read = PendingRead(request: request, environment: readEnvironment())
            if reads.withLock({ $0.enqueue(read, from: connection) }) { queue.async { self.runNextRead() } }
        }
    }

    /// Runs the read that is next in fair order (on the queue), then queues itself again behind
    /// whatever else arrived meanwhile (writes, file events) while reads wait.
    func runNextRead() {
        guard let more = runOneRead() else { return }
        if more { queue.async { self.runNextRead() } }
    }

    /// Runs every read waiting now, in fair order (on the queue; `drain()`).
    func runWaitingReads() {
        while runOneRead() != nil {}
    }

    /// Runs the read next in fair order; returns whether more wait, or nil when none did.
    private func runOneRead() -> Bool? {
        dispatchPrecondition(condition: .onQueue(queue))
        let start = ContinuousClock.now
        guard let (connection, read) = reads.withLock({ $0.next(now: start - startTime) }) else { return nil }
        run(.read(read.request, from: connection, read.environment))
        let end = ContinuousClock.now
        return reads.withLock { $0.finished(connection, cost: end - start, now: end - startTime) }
    }

    /// For the history benchmark only (docs/BENCHMARKS.md, "History ops"):
    /// `BOOKSD_BENCHMARK_UNATTRIBUTED_WRITES` set to `1` leaves socket clients' writes without an
    /// actor, so that what keeping attribution costs a durable insert is measured in one run. Not a
    /// setting: nothing else reads it, and anything but `1` is ignored.
    static let recordsClientActors: Bool = {
        guard let value = getenv("BOOKSD_BENCHMARK_UNATTRIBUTED_WRITES") else { return true }
        return String(cString: value) != "1"
    }()

    private func accept(write request: Request, from connection: ReplyTarget, peer: PeerCredentials) {
        let operation: WriteOperation
        do {
            operation = try WriteOperation(request: request)
        } catch {
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        guard mayWrite(request, from: connection, peer: peer) else { return }
        let overNATS = connection.transport == .nats
        var write = PendingWrite(
            requestID: request.id, connection: connection, operation: operation, source: overNATS ? .nats : .client,
            actor: overNATS ? peer.natsActor : Self.recordsClientActors ? peer.actor : nil)
        if case .insert(let drafts) = operation {
            // Ids are fixed when the write is accepted, so a retried write that did land is not
            // inserted twice.
            let withIDs = drafts.map { draft -> BookDraft in
                guard draft.id == nil else { return draft }
                var assigned = draft
                assigned.id = UUID().uuidString
                write.assignedIDs.append(assigned.id!)
                return assigned
            }
            write.operation = .insert(withIDs)
        }
        if case .save(let changes) = operation {
            write.assignedIDs = changes.insertedIDs
        }
        inbox.withLock { [write] in $0.append(write) }
        queue.async { self.run(.writesReceived(self.takeInbox())) }
    }

    /// Whether `peer` may write; when not, the refusal is logged (rate-limited) and answered.
    func mayWrite(_ request: Request, from connection: ReplyTarget, peer: PeerCredentials) -> Bool {
        let allowed = writers.withLock { $0 }
        guard accounts.mayWrite(peer, uids: allowed.uids, groups: allowed.groups) else {
            let line = refusals.withLock {
                $0.admit(
                    "refused a write from uid \(peer.uid) (pid \(peer.pid)): not a configured writer",
                    key: "uid \(peer.uid)", now: .now)
            }
            if let line { logger.notice(line) }
            let error = ProtocolError(
                .permissionDenied,
                """
                uid \(peer.uid) may read but not write; writers are root, the daemon's user and the configured \
                writer_users/writer_groups
                """
            )
            channel?.send(.failure(request.id, error), to: connection)
            return false
        }
        return true
    }

    /// What a `status` needs besides the books; read on the calling thread.
    func readEnvironment() -> ReadEnvironment {
        let watchState = watch.withLock { $0 }
        let budget = settings.withLock { $0.queryBudgetMilliseconds }
        var environment = ReadEnvironment(
            statistics: channel?.statistics ?? ServerStatistics(), watcher: watchState.watcher?.mode,
            watcherWarning: watchState.warning,
            uptimeSeconds: Double((ContinuousClock.now - startTime).components.seconds),
            queryBudget: QueryBudget(limit: budget > 0 ? .milliseconds(budget) : nil))
        environment.replica = replicaLine.withLock { $0 }
        return environment
    }
}

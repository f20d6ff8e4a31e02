import BooksCore
import BooksNATS
import BooksProtocol
import Dispatch
import FoundationEssentials
import Glibc

/// Client writes on a replica's socket go to the owner, which orders every write of the store.
extension ReplicaLink {
    /// Sends client writes of the replica's socket (and the ops the owner answers, see
    /// `BookEngine.forwardsToOwner`) to the owner from now on. Reads of the owner's history go
    /// on a queue of their own, so they never wait behind a write waiting for its change set.
    func forwardClientWrites() {
        let writes = DispatchQueue(label: "booksd.replica.forward." + store)
        let reads = DispatchQueue(label: "booksd.replica.history." + store)
        engine.writeForwarder.withLock {
            $0 = { [self] request, client, peer in
                let actor = Self.clientActor(peer)
                if Self.readsOwnerHistory(request) {
                    queueHistoryRead(request, actor: actor, to: client, on: reads)
                } else {
                    writes.async { self.answer(request, actor: actor, to: client) }
                }
            }
        }
    }

    /// The most requests for the owner's history (and conflicts) waiting on a replica at once,
    /// the one being asked included.
    static let historyQueueBound = 32
    /// How long such a request may wait behind others before it is answered without asking.
    static let historyWaitLimit = Duration.seconds(5)

    /// Puts a read of the owner's history on `reads` (one asked at a time). When
    /// `historyQueueBound` wait already, it fails at once with `store-unavailable`; one that waited
    /// there longer than `historyWaitLimit` (the owner is slow or gone: each ask may take 5 s)
    /// fails the same way without asking. So no request waits more than about 10 s, however many
    /// clients ask and however slow the owner is.
    private func queueHistoryRead(
        _ request: Request, actor: ChangeActor, to client: ReplyTarget, on reads: DispatchQueue
    ) {
        let waiting = historyWaiting.add(1, ordering: .relaxed).newValue
        guard waiting <= Self.historyQueueBound else {
            historyWaiting.subtract(1, ordering: .relaxed)
            let busy =
                "store '\(store)' is a replica and \(Self.historyQueueBound) requests for its owner's history "
                + "already wait on this host (the owner is slow or unreachable): retry later"
            engine.channel?.send(.failure(request.id, ProtocolError(.storeUnavailable, busy)), to: client)
            return
        }
        let queued = ContinuousClock.now
        reads.async {
            defer { self.historyWaiting.subtract(1, ordering: .relaxed) }
            let waited = ContinuousClock.now - queued
            guard waited < Self.historyWaitLimit else {
                let late =
                    "store '\(self.store)' is a replica and this request waited \(waited) behind others for its "
                    + "owner's history (the owner is slow or unreachable): retry later"
                self.engine.channel?.send(.failure(request.id, ProtocolError(.storeUnavailable, late)), to: client)
                return
            }
            self.answer(request, actor: actor, to: client)
        }
    }

    /// Sends the owner's answer to `request` to `client`: a list at a point too large for one
    /// NATS message is asked again in pages and streamed (`listInPages`).
    private func answer(_ request: Request, actor: ChangeActor, to client: ReplyTarget) {
        let reply = forwardNow(request, actor: actor)
        guard Self.listsAt(request), reply.error?.code == .tooLarge else {
            engine.channel?.send(reply, to: client)
            return
        }
        switch listInPages(request, actor: actor) {
        case .reply(let reply): engine.channel?.send(reply, to: client)
        case .stream(let books): engine.channel?.stream(books, to: client)
        }
    }

    /// Whether `request` only reads (the owner's history, or its conflicts): its answer is not
    /// waited for in the local file, and a lost answer wrote nothing.
    static func readsOwnerHistory(_ request: Request) -> Bool {
        switch request.op {
        case .log, .show, .blame, .conflicts, .list, .query: true
        default: false
        }
    }

    /// The owner's answer to `request`, once the local file holds the change set it made (at
    /// most 5 s later), so the client reads its own write on this socket; `store-unavailable`
    /// when the owner cannot be reached (nothing was written then, or — after a lost answer —
    /// the write landed and comes back through the stream; inserts carry their ids, so a retry
    /// cannot insert twice).
    /// A read of the owner's history (`readsOwnerHistory`) is answered as the owner answered it,
    /// at once; while the owner cannot be reached it fails with `store-unavailable` too.
    /// The request carries `actor` (the replica's client) in its `Books-Actor` header, so the
    /// owner's history names who on this host made the write.
    func forwardNow(_ request: Request, actor: ChangeActor) -> Reply {
        let reads = Self.readsOwnerHistory(request)
        let what = reads ? "its history and conflicts are the owner's" : "nothing was written"
        let retry = reads ? "retry later" : "retry later, or edit the file (edits are queued)"
        guard connection.isConnected else {
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner is unreachable (NATS is down): \(what); \(retry)"))
        }
        let message: NATSMessage
        do {
            let line = try RequestEncoder.encode(request)
            message = try connection.request(
                line, to: apiSubject, headers: Self.actorHeader(actor), timeoutMilliseconds: 5000)
        } catch let error as NATSError where error.isNoResponders {
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner does not answer on \(apiSubject): \(what); \(retry)"))
        } catch {
            let landed =
                reads
                ? "retry later"
                : "if the write landed it arrives through the stream, a retry of it is refused or finds it"
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner did not answer (\(error)); \(landed)"))
        }
        guard case .reply(var reply)? = try? MessageDecoder().decode(message.data) else {
            return .failure(request.id, ProtocolError(.internalError, "an unreadable answer from the owner"))
        }
        reply.id = request.id
        if !reads, reply.ok, let seq = reply.result?.seq { waitUntilApplied(seq: seq, epoch: reply.result?.epoch) }
        return reply
    }

    /// Waits (at most 5 s) until the owner's change set `seq` is in the local file.
    private func waitUntilApplied(seq: UInt64, epoch: String?) {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let applied = machine.withLock { machine -> Bool in
                guard let machine else { return true }
                if let epoch, machine.record.epoch != epoch { return false }
                return machine.record.seq >= seq && machine.localWrite == nil
            }
            if applied { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&pause, nil)
        }
    }
}

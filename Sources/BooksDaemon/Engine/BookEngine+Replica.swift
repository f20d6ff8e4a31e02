import BooksCore
import BooksProtocol
import BooksStore
import FoundationEssentials

/// What a replica (`ReplicaLink`) needs from the engine of its local file: writes carrying the
/// owner's ids through the ordinary client-write path, and the state directory its record is kept in.
extension BookEngine {
    /// Writes `write` (the owner's books) into the file through the same group commit as client
    /// writes — atomic, durable, the file's layout, comments and bad lines kept — as one `save`
    /// whose inserts keep their ids; `expected` versions are the engine's. Not bound by a client
    /// save's `SaveLimits.maxChanges`: a first copy is one save of the whole store. The reply goes to
    /// `connection` through the channel (all or nothing: `conflict` when the file moved).
    func acceptReplicated(_ write: ReplicaWrite, connection: ReplyTarget) {
        var request = Request(id: "replica:\(write.token)", op: .save)
        request.inserted = write.inserted.map { BookInsertion(tempId: $0.id, name: $0.name, author: $0.author) }
        request.updated = write.updated.map {
            BookPatch(id: $0.book.id, name: $0.book.name, author: $0.book.author, expectedVersion: $0.expected)
        }
        request.deleted = write.deleted.map { BookDeletion(id: $0.id, expectedVersion: $0.expected) }
        if request.inserted?.isEmpty == true { request.inserted = nil }
        if request.updated?.isEmpty == true { request.updated = nil }
        if request.deleted?.isEmpty == true { request.deleted = nil }
        var ids = write.inserted.map(\.id).makeIterator()
        let operation: WriteOperation
        do {
            operation = .save(
                try SaveChanges(request: request, maxChanges: .max, makeID: { ids.next() ?? UUID().uuidString }))
        } catch {
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        var pending = PendingWrite(
            requestID: request.id, connection: connection, operation: operation, source: .nats, actor: .nats)
        if case .save(let changes) = operation { pending.assignedIDs = changes.insertedIDs }
        // An untouched file is not read again first: the rewrite proves after its swap that it
        // replaced the version planned on (`PendingWrite.writesWithoutRead`).
        pending.writesWithoutRead = true
        inbox.withLock { [pending] in $0.append(pending) }
        queue.async { self.run(.writesReceived(self.takeInbox())) }
    }

    /// The state directory the replica keeps its record in (`ReplicaRecordStore`). Blocks on
    /// the engine's queue; never call it from there.
    /// - Throws: `.refused` without a state directory.
    func replicaStateDirectory() throws(HistoryStoreError) -> StateDirectory {
        try queue.sync {
            Result { () throws(HistoryStoreError) -> StateDirectory in
                createDeferredHistory()
                guard let history else {
                    throw .refused(path: store.configuration.path, reason: "a replica needs a state directory")
                }
                return history.directory
            }
        }.get()
    }

    /// The file's books with their versions and the seq they are the state of (read on the queue).
    func replicaBooks() -> (seq: UInt64, books: [ReplicaBook]) {
        let (seq, books) = currentBooks()
        return (seq, books.map { ReplicaBook(book: $0.book, version: $0.version) })
    }
}

extension BookEngine {
    /// A replica's client write: checked and authorized like any write, inserts given their ids
    /// here (so a retried write cannot insert twice), then handed to `forward` (the owner answers).
    func forwardWrite(
        _ request: Request, from connection: ReplyTarget, peer: PeerCredentials,
        to forward: @Sendable (Request, ReplyTarget, PeerCredentials) -> Void
    ) {
        do {
            _ = try WriteOperation(request: request)
        } catch {
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        guard mayWrite(request, from: connection, peer: peer) else { return }
        var sent = request
        sent.store = nil
        sent.books = request.books?.map { draft in
            var withID = draft
            if withID.id == nil { withID.id = UUID().uuidString }
            return withID
        }
        forward(sent, connection, peer)
    }
}

extension BookEngine {
    /// On a replica, the ops the owner answers besides writes: `conflicts` (the owner keeps the
    /// conflicts of every merge, a replica's included, so the list is the same on every host),
    /// the history (`log`, `show`, `blame`, `list`/`query` with `at`: the owner's change sets,
    /// in the seqs the replica's feed announces, with the owner's record of who made them), and
    /// `resolve` and `undo` (authorized here like any write; what they write is the owner's
    /// change set, which reaches every file). Returns false (nothing done) on a store that is no
    /// replica and for every other op.
    func forwardsToOwner(_ request: Request, from connection: ReplyTarget, peer: PeerCredentials) -> Bool {
        guard Self.ownerAnswers(request), let forward = writeForwarder.withLock({ $0 }) else { return false }
        if request.op == .resolve || request.op == .undo, !mayWrite(request, from: connection, peer: peer) {
            return true
        }
        var sent = request
        sent.store = nil
        forward(sent, connection, peer)
        return true
    }

    /// Whether a replica has `request` answered by the owner (see `forwardsToOwner`).
    static func ownerAnswers(_ request: Request) -> Bool {
        switch request.op {
        case .conflicts, .resolve, .log, .show, .blame, .undo: true
        case .list, .query: request.at != nil
        default: false
        }
    }
}

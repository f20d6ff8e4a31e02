import BooksCore
import BooksProtocol
import BooksStore
import FoundationEssentials

/// What a replica (`ReplicaLink`) needs from the engine of its local file: writes carrying the
/// owner's ids through the ordinary client-write path, and its record kept in the state directory.
extension BookEngine {
    /// The name of the replica's record in the state directory.
    static let replicaRecordName = "replica.json"

    /// Writes `write` (the owner's books) into the file through the same group commit as client
    /// writes — atomic, durable, the file's layout, comments and bad lines kept — as one `save`
    /// whose inserts keep their ids; `expected` versions are the engine's. The reply goes to
    /// `connection` through the channel (all or nothing: `conflict` when the file moved).
    func acceptReplicated(_ write: ReplicaWrite, connection: ConnectionID) {
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
            operation = try WriteOperation(request: request, makeID: { ids.next() ?? UUID().uuidString })
        } catch {
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        var pending = PendingWrite(
            requestID: request.id, connection: connection, operation: operation, source: .nats, actor: .nats)
        if case .save(let changes) = operation { pending.assignedIDs = changes.insertedIDs }
        inbox.withLock { [pending] in $0.append(pending) }
        queue.async { self.run(.writesReceived(self.takeInbox())) }
    }

    /// The replica's record kept in the state directory, or nil (none yet, or no state directory).
    /// Blocks on the engine's queue; never call it from there.
    func loadReplicaRecord() throws(HistoryStoreError) -> [UInt8]? {
        try queue.sync {
            Result { () throws(HistoryStoreError) -> [UInt8]? in
                createDeferredHistory()
                guard let history else { return nil }
                return try history.directory.read(Self.replicaRecordName, sizeLimit: 1 << 30)
            }
        }.get()
    }

    /// Keeps the replica's record durably (replaced atomically). Blocks on the engine's queue.
    /// - Throws: `HistoryStoreError` when it cannot be written, or `.refused` without a state directory.
    func storeReplicaRecord(_ bytes: [UInt8]) throws(HistoryStoreError) {
        try queue.sync {
            Result { () throws(HistoryStoreError) in
                createDeferredHistory()
                guard let history else {
                    throw .refused(path: store.configuration.path, reason: "a replica needs a state directory")
                }
                try history.directory.replace(Self.replicaRecordName, with: bytes)
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
        _ request: Request, from connection: ConnectionID, peer: PeerCredentials,
        to forward: @Sendable (Request, ConnectionID) -> Void
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
        forward(sent, connection)
    }
}

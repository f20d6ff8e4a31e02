import BooksCore
import BooksProtocol

/// `undo`: the inverse of earlier change sets, planned from the change log (``UndoPlan``) and
/// written as one `save` through the ordinary conflict-checked write path, with source `undo`.
extension ReconcilerStateMachine {
    /// Plans the undo of `seqs` and queues its write; books changed again since (unless `force`)
    /// are left alone and named in the reply's `refused`. Nothing left to write: answered at once
    /// (`conflict` when books were refused).
    mutating func undo(
        _ seqs: [UInt64], force: Bool, requestID: String, connection: ReplyTarget, actor: ChangeActor?
    ) -> [ReconcilerAction] {
        let context = self.context
        func fail(_ error: ProtocolError) -> [ReconcilerAction] { [.reply(.failure(requestID, error), to: connection)] }
        let plan: UndoPlan
        do throws(UndoPlan.Failure) {
            plan = try UndoPlan.make(
                undoing: seqs, log: context.log, currentSeq: context.seq, force: force,
                current: { context.book(id: $0) }, version: { context.version(of: $0) })
        } catch {
            if case .nothingToUndo = error { return fail(ProtocolError(.invalidArgument, error.description)) }
            return fail(ProtocolError(.notFound, error.description))
        }
        let refused = plan.refused.map { refusal in
            BookConflict(
                id: refusal.id, current: refusal.current,
                currentVersion: refusal.current.map { _ in context.version(of: refusal.id) }, message: refusal.message)
        }
        guard !plan.isEmpty else {
            guard refused.isEmpty else {
                let ids = refused.map(\.id).joined(separator: ", ")
                return fail(
                    ProtocolError(
                        .conflict,
                        "nothing undone: \(refused.count) book(s) changed again since: \(ids) (undo --force takes them back)",
                        conflicts: refused))
            }
            let result = ReplyResult(epoch: context.epoch, seq: context.seq, books: [])
            return [.reply(.success(requestID, result), to: connection)]
        }
        let changes = SaveChanges(
            inserted: plan.restored.map { BookInsertion(tempId: $0.id, name: $0.name, author: $0.author) },
            insertedIDs: plan.restored.map(\.id),
            updated: plan.reverted.map {
                BookPatch(id: $0.book.id, name: $0.book.name, author: $0.book.author, expectedVersion: $0.version)
            },
            deleted: plan.removed.map { BookDeletion(id: $0.id, expectedVersion: $0.version) })
        if !refused.isEmpty { undoRefusals[ConflictSettlement(requestID: requestID, connection: connection)] = refused }
        let write = PendingWrite(
            requestID: requestID, connection: connection, operation: .save(changes), assignedIDs: changes.insertedIDs,
            source: .undo, actor: actor)
        return [.process(.writesReceived([write]))]
    }

    /// Adds to an undo's reply, among `actions`, the books it left alone.
    mutating func reportUndoRefusals(in actions: inout [ReconcilerAction]) {
        for index in actions.indices {
            guard case .reply(var reply, let connection) = actions[index], let requestID = reply.id,
                let refused = undoRefusals.removeValue(
                    forKey: ConflictSettlement(requestID: requestID, connection: connection))
            else { continue }
            if reply.ok {
                reply.result?.refused = refused
                actions[index] = .reply(reply, to: connection)
            }
        }
    }
}

extension SaveChanges {
    /// A save made by the daemon itself (an undo): insertions with the permanent ids given.
    init(inserted: [BookInsertion], insertedIDs: [String], updated: [BookPatch], deleted: [BookDeletion]) {
        self.inserted = inserted
        self.insertedIDs = insertedIDs
        self.updated = updated
        self.deleted = deleted
    }
}

import BooksCore
import BooksProtocol
import FoundationEssentials

extension ReconcilerStateMachine {
    /// A client `save` that named its base, merged onto the content held for the commit under
    /// way (it commits alone: its change set is marked merged with the base).
    struct BasedSave: Sendable {
        /// The request, as its reply names it.
        var requestID: String
        var connection: ReplyTarget
        /// The base's seq.
        var baseSeq: UInt64
        /// True when others changed books since the base (the change set is then marked merged).
        var rebased: Bool
        var merge: MergedClientSave
    }

    /// Merges the first write of `writes` that is a `save` with a base onto the content held
    /// (the books at the base rebuilt from the change log: the net change since, as for a save
    /// from a stale buffer). Returns the writes to plan, that one replaced by the merged plain
    /// save (or left out, its error replied, when the base cannot be merged onto), and the merge.
    func mergeBasedSave(
        _ writes: [PendingWrite], into actions: inout [ReconcilerAction]
    ) -> (writes: [(ticket: PendingWrite, operation: WriteOperation)], based: BasedSave?) {
        var planned = writes.map { (ticket: $0, operation: $0.operation) }
        guard let index = writes.firstIndex(where: { $0.operation.base != nil }),
            case .save(let changes) = writes[index].operation, let base = changes.base
        else { return (planned, nil) }
        let write = writes[index]
        let merged = baseChanges(base).flatMap { theirs in
            changes.merged(onto: context, theirs: theirs).map { (theirs, $0) }
        }
        switch merged {
        case .failure(let error):
            actions.append(.reply(.failure(write.requestID, error), to: write.connection))
            planned.remove(at: index)
            return (planned, nil)
        case .success(let (theirs, merge)):
            planned[index].operation = .save(merge.save)
            let based = BasedSave(
                requestID: write.requestID, connection: write.connection, baseSeq: base.seq,
                rebased: !theirs.isEmpty, merge: merge)
            return (planned, based)
        }
    }

    /// The net change from the version `base` names to the content held, or `base-not-kept`.
    func baseChanges(_ base: ResumePoint) -> Result<NetChanges, ProtocolError> {
        guard base.epoch == context.epoch else {
            return .failure(
                ProtocolError(
                    .baseNotKept,
                    """
                    the save's base is of epoch \(base.epoch), the store is at epoch \(context.epoch): read again \
                    and save with the new base; nothing saved
                    """))
        }
        guard base.seq <= context.seq else {
            return .failure(
                ProtocolError(
                    .baseNotKept,
                    "the save's base seq \(base.seq) is after the store's seq \(context.seq); nothing saved"))
        }
        guard let theirs = changesSince(seq: base.seq) else {
            let oldest = context.log.oldestSeq.map { "seq \($0 - 1) or later" } ?? "only the current seq"
            return .failure(
                ProtocolError(
                    .baseNotKept,
                    """
                    the save's base seq \(base.seq) is older than the history kept (it can merge onto \(oldest)): \
                    read again and save with the new base; nothing saved
                    """))
        }
        return .success(theirs)
    }

    /// The reply to the merged save `based` once acknowledged: its conflicts recorded (kept
    /// before the reply goes out) and announced.
    mutating func acknowledge(_ based: BasedSave, write: PendingWrite) -> [ReconcilerAction] {
        var actions: [ReconcilerAction] = []
        let known = conflicts.count
        let who = write.actor?.summary ?? ""
        if !based.merge.conflicts.isEmpty {
            let time = Date()
            for conflict in based.merge.conflicts {
                conflicts.append(
                    RecordedConflict(
                        id: nextConflictID, conflict: conflict, seq: context.seq, baseSeq: based.baseSeq, time: time,
                        who: who))
                nextConflictID += 1
            }
            actions.append(
                .log(
                    .warning,
                    """
                    a client save based on seq \(based.baseSeq)\(who.isEmpty ? "" : " (\(who))") conflicts with \
                    changes made since on \(based.merge.conflicts.count) field(s) (books \
                    \(Set(based.merge.conflicts.map(\.id)).sorted().joined(separator: ", "))): the saver's values \
                    stand; see booksctl conflicts
                    """, seq: context.seq))
            actions.append(.storeConflicts(conflicts))
        }
        let books = based.merge.books
        let result = ReplyResult(
            epoch: context.epoch, seq: context.seq, books: books, versions: books.map { context.version(of: $0.id) },
            remap: based.merge.remap, conflicts: conflicts.count > known ? Array(conflicts[known...]) : nil,
            merged: based.merge.merged)
        actions.append(.reply(.success(write.requestID, result), to: write.connection))
        return actions + conflicts[known...].map { announcement($0, resolved: nil) }
    }
}

extension WriteOperation {
    /// A `save`'s base, if it names one.
    var base: ResumePoint? {
        if case .save(let changes) = self { changes.base } else { nil }
    }
}

extension PendingWrite {
    /// An undo and a save that names its base are change sets of their own: never committed
    /// with other writes.
    var commitsAlone: Bool { source == .undo || operation.base != nil }
}

import BooksCore
import BooksProtocol
import FoundationEssentials

extension ReconcilerStateMachine {
    /// Applies a stale save rebased onto the content held: the context moves to the merged
    /// content, the merged content is written over the save, and its conflicts are kept.
    /// Subscribers get only the save's real changes, marked with the base — once the merged
    /// content is in the file (the answer to its write, ``mergedSaveWritten(_:merged:)``), as for
    /// every other write: one who reads the file on the announcement finds the others' writes.
    mutating func applyStaleSave(_ stale: StaleSave, identity: FileIdentity) -> [ReconcilerAction] {
        supersedeConfirmation()
        fileState = .present
        self.identity = identity
        let before = context.document.badLineCount
        var actions: [ReconcilerAction] = []
        // The change set and what must follow it on the feed and in the log.
        var toAnnounce: [ReconcilerAction] = []
        let who = Self.who(editorLocks)
        let applied = context.apply(bytes: stale.result.bytes, source: .file, mergedBase: stale.base.seq)
        if let applied {
            toAnnounce.append(.broadcast(applied))
            let c = applied.changes
            toAnnounce.append(
                .log(
                    .info,
                    """
                    file edit from a buffer loaded at seq \(stale.base.seq)\(who.isEmpty ? "" : " (\(who))"), merged \
                    with the \(context.seq - 1 - stale.base.seq) change set(s) since: \(c.inserted.count) inserted, \
                    \(c.updated.count) updated, \(c.deleted.count) deleted
                    """, seq: applied.seq))
        }
        // The save itself is a version of the file too (an editor's buffer now holds it): its books
        // are those held now with the others' re-applied changes undone.
        let saved = Self.version(seq: context.seq, identity: identity, overlay: NetChanges(stale.result.reapplied))
        fileVersions.record(saved)
        if lockBases[stale.saver] != nil { lockBases.set(stale.saver, to: saved) }
        let known = conflicts.count
        if !stale.result.conflicts.isEmpty {
            let time = applied?.time ?? Date()
            for conflict in stale.result.conflicts {
                conflicts.append(
                    RecordedConflict(
                        id: nextConflictID, conflict: conflict, seq: context.seq, baseSeq: stale.base.seq, time: time,
                        who: who))
                nextConflictID += 1
            }
            actions.append(.storeConflicts(conflicts))
            toAnnounce.append(
                .log(
                    .warning,
                    """
                    a save from a stale buffer conflicts with changes made since on \(stale.result.conflicts.count) \
                    field(s) (books \(Set(stale.result.conflicts.map(\.id)).sorted().joined(separator: ", "))): the \
                    saver's values stand; see booksctl conflicts
                    """, seq: context.seq))
        }
        toAnnounce += conflicts[known...].map { announcement($0, resolved: nil) }
        if stale.result.isSave {
            actions += toAnnounce  // the file holds it already
        } else {
            mergedWrite = MergedWrite(announcement: toAnnounce, saved: stale.saved)
            actions.append(.writeMergedSave(merged: stale.result.bytes, replacing: stale.saved, expected: identity))
        }
        let after = context.document.badLineCount
        if after != before { actions.append(.log(.warning, "the book file has \(after) bad line(s)")) }
        return actions + afterFileChange()
    }

    /// The merged content was written over the save: its change set is announced now. When the
    /// file had changed again (a newer hand edit), the change set is announced all the same (the
    /// context holds it, and the feed has no gap) and the file is compared again at once: the
    /// newer edit's change set follows (a newer save from the stale buffer is merged again). An
    /// edit written to the save's file in the instant it was replaced is applied on top.
    mutating func mergedSaveWritten(
        _ result: Result<AtomicWriteResult, BookFileError>, merged: [UInt8]
    ) -> [ReconcilerAction] {
        let pending = mergedWrite
        mergedWrite = nil
        if let late = pending?.lateEdit { return lateEditOfMergedSaveWritten(result, late: late, merged: merged) }
        var actions = pending?.announcement ?? []
        switch result {
        case .success(let written):
            identity = written.identity
            actions.append(.log(.debug, "merged save written: \(written.identity.traceDescription)"))
            if !written.directorySynced {
                actions.append(
                    .log(.error, "the merged book file is in place, but syncing its directory failed (check the disk)"))
            }
            if let late = written.lateEdit, let saved = pending?.saved {
                // Its edit of the save is merged with ours when they touch different lines, else
                // its content stands as written (as for a client write's late edit).
                let content =
                    ByteSplice.mergedContent(
                        base: saved, ours: ByteSplice(from: saved, to: merged),
                        theirs: ByteSplice(from: saved, to: late))
                    ?? late
                mergedWrite = MergedWrite(announcement: [], saved: merged, lateEdit: late)
                actions.append(
                    .log(
                        .warning,
                        "another program wrote to the book file just as a merged save replaced it; its edit is applied on top"
                    ))
                actions.append(.writeMergedSave(merged: content, replacing: merged, expected: written.identity))
            }
        case .failure(.changedDuringWrite):
            actions.append(.log(.notice, "the file changed again before a merged save was written; comparing again"))
            actions.append(.observeFile(.fileEvent, unlessIdentity: nil))
        case .failure(let error):
            actions.append(.log(.error, "the merged save could not be written (\(error)); comparing again"))
            actions.append(.observeFile(.fileEvent, unlessIdentity: nil))
        }
        return actions
    }

    /// The late edit of a merged save, applied on top, was written (`content`: a file edit now
    /// in the file), or not: then the file changed again, and the late edit is kept beside it.
    private mutating func lateEditOfMergedSaveWritten(
        _ result: Result<AtomicWriteResult, BookFileError>, late: [UInt8], merged content: [UInt8]
    ) -> [ReconcilerAction] {
        switch result {
        case .success(let written):
            var actions = applyFileEdit(identity: written.identity) {
                $0.apply(bytes: content, source: .file, actor: $1)
            }
            if let again = written.lateEdit {
                actions.append(
                    .keepInRecoveryFile(again, message: "another late write to the replaced book file was kept in"))
            }
            return actions
        case .failure(let error):
            return [
                .keepInRecoveryFile(
                    late,
                    message:
                        "a late write to the replaced book file could not be applied (\(error)); its content was kept in"
                ),
                .observeFile(.fileEvent, unlessIdentity: nil),
            ]
        }
    }

    /// Settles conflict `id`: taking the saver's side only drops it (their value is in the file);
    /// taking the others' side writes their value like a client write and drops it once that
    /// write succeeds (a failed write keeps it).
    mutating func resolveConflict(
        _ id: Int, take side: ConflictSide, requestID: String, connection: ReplyTarget,
        source: ChangeSource = .client, actor: ChangeActor? = nil
    ) -> [ReconcilerAction] {
        guard let index = conflicts.firstIndex(where: { $0.id == id }) else {
            return [
                .reply(
                    .failure(
                        requestID,
                        ProtocolError(.notFound, "no unsettled conflict \(id) (booksctl conflicts lists them)")),
                    to: connection)
            ]
        }
        let recorded = conflicts[index]
        let current = context.book(id: recorded.conflict.id)
        let wanted = recorded.settled(taking: side, current: current)
        let operation: WriteOperation?
        switch (current, wanted) {
        case (nil, nil): operation = nil
        case (.some(let now), nil): operation = .delete(ids: [now.id], expectedVersions: nil)
        case (nil, .some(let book)): operation = .insert([BookDraft(id: book.id, name: book.name, author: book.author)])
        case (.some(let now), .some(let book)):
            operation =
                now.isIdenticalValue(to: book)
                ? nil : .update([BookPatch(id: book.id, name: book.name, author: book.author)])
        }
        guard let operation else {
            conflicts.remove(at: index)
            var actions: [ReconcilerAction] = [.storeConflicts(conflicts), announcement(recorded, resolved: side)]
            let result = ReplyResult(epoch: context.epoch, seq: context.seq, books: current.map { [$0] } ?? [])
            actions.append(.reply(.success(requestID, result), to: connection))
            return actions + [.publishStatus]
        }
        settling[ConflictSettlement(requestID: requestID, connection: connection)] = id
        settlingSides[id] = side
        return [
            .process(
                .writesReceived([
                    PendingWrite(
                        requestID: requestID, connection: connection, operation: operation, source: source,
                        actor: actor)
                ]))
        ]
    }

    /// Drops each conflict whose settling write is acknowledged among `actions` (persisting the
    /// list before the reply goes out); one whose write failed stays kept.
    mutating func settleConflicts(answeredBy actions: inout [ReconcilerAction]) {
        var index = 0
        while index < actions.count {
            if case .reply(let reply, let connection) = actions[index], let requestID = reply.id,
                let id = settling.removeValue(forKey: ConflictSettlement(requestID: requestID, connection: connection)),
                reply.ok
            {
                let side = settlingSides.removeValue(forKey: id) ?? .theirs
                if let settled = conflicts.first(where: { $0.id == id }) {
                    actions.insert(announcement(settled, resolved: side), at: index)
                    index += 1
                }
                conflicts.removeAll { $0.id == id }
                actions.insert(.storeConflicts(conflicts), at: index)
                index += 1
            } else if case .reply(let reply, _) = actions[index], !reply.ok {
                settlingSides = settlingSides.filter { id, _ in settling.values.contains(id) }
            }
            index += 1
        }
    }

    /// The `conflict` event of `conflict`, just recorded (`resolved` nil) or settled by taking
    /// `resolved`, at the seq held now.
    func announcement(_ conflict: RecordedConflict, resolved: ConflictSide?) -> ReconcilerAction {
        var event = Event(event: .conflict, epoch: context.epoch, seq: context.seq)
        event.conflict = conflict
        event.resolved = resolved
        return .announceConflict(event)
    }

    /// Who saved, as the editor locks name them.
    static func who(_ locks: [EditorLock]) -> String {
        locks.map { lock in
            switch lock {
            case .swap(let header): return "\(header.user)@\(header.host) pid \(header.pid)"
            case .emacs(let emacs): return "\(emacs.user)@\(emacs.host) pid \(emacs.pid)"
            }
        }.joined(separator: ", ")
    }
}

/// A `resolve` whose write is under way: its request, as its reply names it.
struct ConflictSettlement: Hashable {
    var requestID: String
    var connection: ReplyTarget
}

extension Book {
    /// Byte-for-byte equality of name and author.
    func isIdenticalValue(to other: Book) -> Bool {
        name.utf8.elementsEqual(other.name.utf8) && author.utf8.elementsEqual(other.author.utf8)
    }
}

/// A merged save being written: its change set and what follows it (log lines, conflict events),
/// held back until the write's answer; the save's canonical text (the base of an edit that lands
/// in its file as it is replaced); for the write of such an edit on top, that edit.
struct MergedWrite {
    var announcement: [ReconcilerAction]
    var saved: [UInt8]
    var lateEdit: [UInt8]?
}

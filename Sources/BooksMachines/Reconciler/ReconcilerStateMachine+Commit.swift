import BooksCore
import BooksProtocol

/// Group commit: bring the context up to date with the file, plan one save for every queued
/// write, save, apply the result, then acknowledge exactly what the file now holds.
extension ReconcilerStateMachine {
    /// Starts a commit of every queued write, unless one is under way or none is queued.
    mutating func commitQueuedWrites() -> [ReconcilerAction] {
        guard !commitState.isCommitting, !queued.isEmpty else { return [] }
        // An undo (source `undo`) and a save that names its base are change sets of their own:
        // never committed with other writes.
        let alone = queued.firstIndex { $0.commitsAlone }
        let split = alone == 0 ? 1 : alone ?? queued.count
        let writes = Array(queued[..<split])
        queued.removeFirst(split)
        return startCommit(writes)
    }

    /// Starts a commit of `writes` (none: only give ids to rows typed by hand); the writes still
    /// queued then are sent round once it ends.
    mutating func startCommit(_ writes: [PendingWrite]) -> [ReconcilerAction] {
        commitState = .observing(writes, Round(retries: commitState.retries, leftWrites: !queued.isEmpty))
        return [.observeFile(.commit, unlessIdentity: untouchedIdentityForAppending(writes))]
    }

    /// The identity under which `writes` may skip re-reading the file: they are all inserts (or
    /// saves that only insert) into
    /// a text file that still has the identity it had when last read or written, with no retry,
    /// confirmation or id assignment in progress. Such a group takes the append path, and nothing
    /// is lost without the read: the append refuses a file whose identity changed (the group is
    /// then retried after a full read), and appending overwrites nothing, so an edit that slipped
    /// past the identity check stays in the file and is reported by its own watcher event.
    /// Writes marked `writesWithoutRead` (a replica's) skip it too, updates and deletes included:
    /// the rewrite checks after its swap that it replaced the version planned on (same inode and
    /// bytes, else put back: retried after a full read), so no hand edit is overwritten.
    func untouchedIdentityForAppending(_ writes: [PendingWrite]) -> FileIdentity? {
        guard !writes.isEmpty, configuration.format == .text,
            writes.allSatisfy({ $0.operation.onlyInserts || $0.writesWithoutRead }),
            writeRetries == 0, fileState == .present, context.document.newBookCount == 0,
            context.document.bytes.last == 0x0A
        else { return nil }
        return identity
    }

    /// Step 1 and 2: the file was looked at; apply what changed, then plan and save.
    mutating func commitObserved(_ observation: FileObservation) -> [ReconcilerAction] {
        guard case .observing(let writes, let round) = commitState else { return [] }
        var actions: [ReconcilerAction] = []
        let comparison: FileComparison
        switch observation {
        case .sameIdentity(let identity):
            comparison = .unchanged(identity: identity)
            actions.append(
                .log(
                    .debug,
                    """
                    commit of \(writes.count) write(s): file untouched (\(identity.traceDescription)), \
                    \(writes.allSatisfy(\.operation.onlyInserts) ? "appending" : "writing") without a read
                    """
                ))
        case .compared(let compared):
            verificationRounds = nil
            comparison = compared
            actions.append(.log(.debug, "commit of \(writes.count) write(s): file \(compared.traceDescription)"))
        }
        if let blocked = bringUpToDate(comparison, writes: writes, into: &actions) {
            commitState = .idle(retries: round.retries)
            return actions + writes.map { .reply(.failure($0.requestID, blocked), to: $0.connection) }
        }
        let (planned, based) = mergeBasedSave(writes, into: &actions)
        let plan = WritePlan(planned, context: context, assignedIDs: Set(writes.flatMap(\.assignedIDs)))
        for (write, error) in plan.refused {
            actions.append(.reply(.failure(write.requestID, error), to: write.connection))
        }
        let commit = Commit(accepted: plan.accepted, deferred: plan.deferred.map(\.ticket), based: based)
        guard !plan.save.isEmpty || context.document.newBookCount > 0 else {
            return actions + finish(commit, round)
        }
        commitState = .saving(commit, round)
        actions.append(.save(plan.save, onto: context.document, expected: identity))
        return actions
    }

    /// Applies the comparison a commit starts with; returns the error for every write when the
    /// file cannot be written now.
    private mutating func bringUpToDate(
        _ comparison: FileComparison, writes: [PendingWrite],
        into actions: inout [ReconcilerAction]
    ) -> ProtocolError? {
        let confirming = if case .confirming = fileState { true } else { false }
        switch comparison {
        case .unavailable(let error):
            fileState = .unavailable(error.description)
            actions += scheduleReread(after: error)
            return ProtocolError(.storeUnavailable, "the book file cannot be written now: \(error)")
        case .missing:
            guard context.bookCount > 0 else {
                identity = nil
                return nil
            }
            if !confirming { actions += scheduleConfirmation(observed: nil, reason: "the file disappeared") }
            return ProtocolError(.storeUnavailable, "the book file is missing or being replaced; retry in a moment")
        case .unchanged(let identity):
            self.identity = identity
            fileState = .present
            return nil
        case .changed(let splice, let identity):
            if let reason = destructiveReason(splice) {
                if !confirming {
                    actions += scheduleConfirmation(
                        observed: splice.applied(to: context.document.bytes), reason: reason)
                }
                return ProtocolError(
                    .storeUnavailable, "the book file is being rewritten (\(reason)); retry in a moment")
            }
            if writeRetries > 0, !writes.isEmpty {
                // A retry: the hand edit that made the write retry may carry rows the first
                // attempt appended. Report the hand edit as such, and the client's rows as theirs.
                let canonical = splice.applied(to: context.document.bytes)
                actions += applyTheirsFirst(content: canonical, ours: Set(writes.flatMap(\.assignedIDs)))
                self.identity = identity
                fileState = .present
                let (source, actor) = commitAttribution(writes)
                if let applied = context.apply(bytes: canonical, source: source, actor: actor) {
                    revertDetector.record(applied.changes)
                    actions.append(.broadcast(applied))
                }
            } else if hasSaveEvidence, let stale = mergeStaleSave(splice) {
                return staleSaveBeforeCommit(stale, splice: splice, identity: identity, into: &actions)
            } else {
                actions += applyFileEdit(identity: identity) { $0.apply(splice: splice, source: .file, actor: $1) }
            }
            return nil
        }
    }

    /// Step 3: the save finished.
    mutating func saveFinished(_ outcome: Result<SaveResult, BookFileError>) -> [ReconcilerAction] {
        guard case .saving(let commit, var round) = commitState else { return [] }
        let result: SaveResult
        switch outcome {
        case .failure(let error):
            if case .changedDuringWrite = error, round.retries < Self.writeRetryLimit {
                round.retries += 1
                return [.log(.debug, "save refused, the file changed during the write: retry \(round.retries)")]
                    + retry(commit, retries: round.retries)
            }
            commitState = .idle(retries: 0)
            let failure = ProtocolError(.storeUnavailable, "the write failed and the file is unchanged: \(error)")
            var actions: [ReconcilerAction] = [.log(.error, "write failed: \(error)")]
            actions += commit.accepted.map { .reply(.failure($0.ticket.requestID, failure), to: $0.ticket.connection) }
            switch error {
            case .concurrentEditKept, .appendLeftPartial:
                // The file now holds another program's edit (or part of a row): read it now
                // rather than wait for its event.
                actions.append(.observeFile(.fileEvent, unlessIdentity: nil))
            default:
                break
            }
            return actions + continueWith(commit.deferred, leftWrites: round.leftWrites)
        case .success(let saved):
            result = saved
        }
        round.retries = 0
        commitState = .saving(commit, round)
        identity = result.identity
        fileState = .present
        var actions: [ReconcilerAction] = [
            .log(
                .debug, "saved (\(result.appended == nil ? "rewrite" : "append")): \(result.identity.traceDescription)")
        ]
        if !result.directorySynced {
            actions.append(
                .log(
                    .error,
                    """
                    the rewritten book file is in place, but syncing its directory failed: a power cut may undo \
                    this write (check the disk)
                    """
                ))
        }
        // Without client writes, the save only gave ids to rows typed by hand: that change is the
        // hand edit's, so it is reported with source `file`.
        let (source, actor) = commitAttribution(commit.accepted.map(\.ticket))
        let base = result.lateEdit == nil ? [] : context.document.bytes  // rare: keep a copy
        let merged = commit.based.flatMap { $0.rebased ? $0.baseSeq : nil }
        let applied: SequencedChangeSet?
        if let content = separateForeignEdits(result, into: &actions) {
            applied = context.apply(
                bytes: content, source: source, remapped: result.remapped, mergedBase: merged, actor: actor)
        } else {
            applied = context.apply(
                splice: result.splice, source: source, remapped: result.remapped, mergedBase: merged, actor: actor)
        }
        if let applied {
            actions.append(.broadcast(applied))
            // A replica's own writes carry its owner's change sets (the owner watches its own
            // client writes for reverts): not watched here, where a first copy would keep every
            // book of the store twice until the next file edit.
            let replicated = commit.accepted.allSatisfy { $0.ticket.connection.transport == .replica }
            if source != .file, !replicated { revertDetector.record(applied.changes, seq: applied.seq) }
            let c = applied.changes
            // Named as the feed names its source: a save that only gave ids to typed rows is a file edit.
            let what = source != .file ? "\(source.rawValue) write" : "file edit (ids given to new rows)"
            actions.append(
                .log(
                    .info,
                    "\(what): \(c.inserted.count) inserted, \(c.updated.count) updated, \(c.deleted.count) deleted",
                    seq: applied.seq))
        }
        if let late = result.lateEdit {
            // Another program wrote to the version this save replaced (it had opened the file an
            // instant before the swap): merge its edit with ours when they touch different lines,
            // else its content stands as written; either way it is written and reported as a file
            // edit, or kept in a recovery file — never silently lost.
            let theirs = ByteSplice(from: base, to: late)
            if !theirs.isEmpty {
                let merged = ByteSplice.mergedContent(base: base, ours: result.splice, theirs: theirs) ?? late
                commitState = .writingLateEdit(commit, round)
                actions.append(
                    .log(
                        .warning,
                        """
                        another program wrote to the book file just as the daemon replaced it; its edit is \
                        applied on top
                        """
                    ))
                actions.append(
                    .writeLateEdit(merged: merged, replacing: context.document.bytes, expected: identity, late: late))
                return actions
            }
        }
        return actions + finish(commit, round)
    }

    /// The late edit of a save was written (or not).
    mutating func lateEditWritten(
        _ result: Result<AtomicWriteResult, BookFileError>, late: [UInt8],
        merged: [UInt8]
    ) -> [ReconcilerAction] {
        guard case .writingLateEdit(let commit, let round) = commitState else { return [] }
        var actions: [ReconcilerAction] = []
        switch result {
        case .success(let written):
            identity = written.identity
            if let applied = context.apply(bytes: merged, source: .file, actor: fileActor()) {
                actions.append(.broadcast(applied))
            }
            if let again = written.lateEdit {
                actions.append(
                    .keepInRecoveryFile(again, message: "another late write to the replaced book file was kept in"))
            }
        case .failure(let error):
            // The file changed again meanwhile: that edit stands; keep this one beside it.
            actions.append(
                .keepInRecoveryFile(
                    late,
                    message:
                        """
                        a late write to the replaced book file could not be applied (\(error)); its content was \
                        kept in
                        """
                ))
        }
        return actions + finish(commit, round)
    }

    /// Step 4: acknowledge what the file now holds. A writer that overwrote the file right after
    /// our write (possible with the append path) sends the writes round again.
    private mutating func finish(_ commit: Commit, _ round: Round) -> [ReconcilerAction] {
        let landed = commit.accepted.allSatisfy { _, outcome in
            switch outcome {
            case .inserted(let books), .updated(let books): books.allSatisfy { context.book(id: $0.id) == $0 }
            case .deleted(let books): books.allSatisfy { context.book(id: $0.id) == nil }
            case .saved(let saved): saved.landed(in: context)
            }
        }
        if !landed, round.retries < Self.writeRetryLimit {
            return [.log(.notice, "the file changed while a write was applied; applying the write again on top of it")]
                + retry(commit, retries: round.retries + 1)
        }
        commitState = .idle(retries: round.retries)
        var actions: [ReconcilerAction] = commit.accepted.flatMap { write, outcome -> [ReconcilerAction] in
            if let based = commit.based, based.requestID == write.requestID, based.connection == write.connection {
                return acknowledge(based, write: write)
            }
            let books: [Book]
            var remap: [String: String]?
            switch outcome {
            case .inserted(let inserted): books = inserted
            case .updated(let updated): books = updated
            case .deleted(let deleted): books = deleted
            case .saved(let saved):
                books = saved.inserted + saved.updated
                remap = saved.remap
            }
            let result = ReplyResult(
                epoch: context.epoch, seq: context.seq, books: books,
                versions: books.map { context.version(of: $0.id) }, remap: remap)
            return [.reply(.success(write.requestID, result), to: write.connection)]
        }
        actions += continueWith(commit.deferred, leftWrites: round.leftWrites)
        return actions
    }

    /// Puts a commit's writes back first in line and retries them shortly (their `retries`th retry).
    private mutating func retry(_ commit: Commit, retries: Int) -> [ReconcilerAction] {
        commitState = .idle(retries: retries)
        queued.insert(contentsOf: commit.accepted.map(\.ticket) + commit.deferred, at: 0)
        return [.scheduleWriteRetry(after: Self.writeRetryDelay)]
    }

    /// After a commit: writes it deferred (they touch a book an earlier write of the group
    /// touched) go first in the next one, or else the writes it left behind, then the status line
    /// is refreshed.
    private mutating func continueWith(_ deferred: [PendingWrite], leftWrites: Bool) -> [ReconcilerAction] {
        if deferred.isEmpty, leftWrites {
            return [.process(.writesDue), .publishStatus]
        }
        guard !deferred.isEmpty else { return [.publishStatus] }
        queued.insert(contentsOf: deferred, at: 0)
        return [.process(.writesDue), .publishStatus]
    }

    /// When someone else wrote to the file between an append's check and its read-back (an
    /// `echo >>` racing with a client insert), applies their edit first, as a file change, so the
    /// client change set holds only the client's books. Returns the file's whole content then (to
    /// apply as the client's change); nil when exactly our rows were added.
    private mutating func separateForeignEdits(_ result: SaveResult, into actions: inout [ReconcilerAction]) -> [UInt8]?
    {
        guard let appended = result.appended,
            result.splice != .append(appended, to: context.document.bytes.count)
        else { return nil }
        let content = result.content(basedOn: context.document.bytes)
        actions += applyTheirsFirst(content: content, ours: Set(result.inserted.map(\.id)))
        return content
    }

    /// Applies `content` without the rows of the books `ours` (ids of a client write in
    /// progress) as a file change; the caller then applies `content` itself as the client's.
    private mutating func applyTheirsFirst(content: [UInt8], ours: Set<String>) -> [ReconcilerAction] {
        let document = BookDocument(parsing: content, lineLimit: configuration.maxLineBytes, previous: context.document)
        let edits = ours.compactMap { id in document.lineIndex(ofBook: id).map { DocumentEdit.delete(line: $0) } }
        let theirs = edits.isEmpty ? content : document.rendering(edits)
        guard let applied = context.apply(bytes: theirs, source: .file, actor: fileActor()) else { return [] }
        return [
            .broadcast(applied),
            .log(.info, "a file edit raced with a client write; reported separately", seq: applied.seq),
        ]
    }
}

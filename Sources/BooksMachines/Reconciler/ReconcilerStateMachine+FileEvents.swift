import BooksCore
import BooksProtocol

/// The machine's inputs from the book file: the load at a start, file events, the verification of
/// an event on a file whose identity did not change, and applying what a comparison found.
extension ReconcilerStateMachine {
    mutating func loaded(_ snapshot: BookStoreSnapshot) -> [ReconcilerAction] {
        if resumingHistory { return resumed(snapshot) }
        var actions: [ReconcilerAction] = []
        switch snapshot {
        case .unavailable(let error):
            fileState = .unavailable(error.description)
            lastLoggedProblem = error.description
            actions.append(.log(.error, "cannot use the book file: \(error)"))
            actions += scheduleReread(after: error)
            supersedeConfirmation()
        case .missing:
            fileState = .missing
            identity = nil
            actions.append(.log(.notice, "the book file does not exist yet; starting with no books"))
        case .present(let canonical, let identity):
            lastLoggedProblem = nil
            let document = BookDocument(parsing: canonical, lineLimit: configuration.maxLineBytes)
            context = BookLedger(document: document, epoch: context.epoch, retention: configuration.changeLogRetention)
            fileState = .present
            self.identity = identity
            actions += Self.loadedLog(document)
        }
        return actions + afterFileChange()
    }

    mutating func fileEvent(_ event: FileWatchEvent) -> [ReconcilerAction] {
        var actions: [ReconcilerAction] = []
        switch event {
        case .attributesChanged:
            return []  // chmod/touch: no content decision on attributes alone
        case .overflow:
            actions.append(.log(.warning, "inotify queue overflowed: re-reading the whole file"))
        case .watchLost:
            actions.append(
                .log(.warning, "the watch on the file's directory was lost or re-established: re-reading the file"))
        case .contentMayHaveChanged, .removed, .created:
            break
        }
        return actions + refresh(mayDefer: event == .contentMayHaveChanged)
    }

    /// Looks at the file after an event. A write being retried reads the file itself (and tells
    /// the hand edit's rows from the client's); an event on a file that still looks as last seen
    /// is compared later.
    mutating func refresh(mayDefer: Bool) -> [ReconcilerAction] {
        if writeRetries > 0, !queued.isEmpty { return commitQueuedWrites() }
        let known = mayDefer && fileState == .present ? identity : nil
        return [.observeFile(.fileEvent, unlessIdentity: known)]
    }

    mutating func fileObserved(
        _ observation: FileObservation, for purpose: ObservationPurpose
    ) -> [ReconcilerAction] {
        switch (purpose, observation) {
        case (.commit, _):
            return commitObserved(observation)
        case (_, .sameIdentity):
            return [.log(.debug, "file event on the identity last read or written: comparison deferred")]
                + scheduleVerification()
        case (_, .compared(let comparison)):
            verificationRounds = nil  // any full comparison settles a deferred one
            return applyFileChanges(comparison) + afterFileChange()
        }
    }

    /// What follows a change from the file: ids for rows typed by hand, then the status line.
    mutating func afterFileChange() -> [ReconcilerAction] {
        var actions: [ReconcilerAction] = []
        if context.document.newBookCount > 0, fileState == .present, !commitState.isCommitting {
            actions += startCommit([])
        }
        actions.append(.publishStatus)
        return actions
    }

    /// Defers the comparison of an event on an apparently untouched file: for the event of the
    /// daemon's own write it finds nothing, and waiting (while client writes keep coming, up to
    /// `verificationMaximumRounds`) keeps a full re-read out of the way of the next write. It
    /// still always runs: an edit that kept size and timestamps is reported late, never missed.
    mutating func scheduleVerification() -> [ReconcilerAction] {
        guard verificationRounds == nil else { return [] }
        verificationRounds = 0
        return [.scheduleVerification(after: Self.verificationDelay)]
    }

    mutating func verificationTimerFired(writesWaiting: Bool) -> [ReconcilerAction] {
        guard let rounds = verificationRounds else { return [] }  // settled meanwhile
        if writesWaiting || !queued.isEmpty, rounds + 1 < Self.verificationMaximumRounds {
            verificationRounds = rounds + 1
            return [.scheduleVerification(after: Self.verificationDelay)]
        }
        return [.observeFile(.verification, unlessIdentity: nil)]
    }

    /// Applies what a comparison after a watcher event found; a destructive-looking state waits
    /// for confirmation.
    mutating func applyFileChanges(_ comparison: FileComparison) -> [ReconcilerAction] {
        switch comparison {
        case .unavailable(let error):
            fileState = .unavailable(error.description)
            supersedeConfirmation()
            let reread = scheduleReread(after: error)
            guard lastLoggedProblem != error.description else { return reread }
            lastLoggedProblem = error.description
            return [.log(.error, "cannot use the book file: \(error)")] + reread
        case .missing:
            if context.bookCount == 0 {
                return applyFileEdit(identity: nil) { $0.apply(bytes: [], source: .file, actor: $1) }
            }
            return scheduleConfirmation(observed: nil, reason: "the file disappeared")
        case .unchanged(let identity):
            lastLoggedProblem = nil
            fileState = .present
            self.identity = identity
            supersedeConfirmation()
            return []
        case .changed(let splice, let identity):
            lastLoggedProblem = nil
            if let reason = destructiveReason(splice) {
                return scheduleConfirmation(
                    observed: splice.applied(to: context.document.bytes), reason: reason, locks: editorLocks)
            }
            // The same content as a save from a stale buffer waiting to stand still (an editor's
            // second write of it, or its lock gone meanwhile): it keeps waiting.
            if let pending = confirmation, !pending.locks.isEmpty || !pending.vanished.isEmpty,
                let seen = pending.observed, ByteComparison.equal(splice.applied(to: context.document.bytes), seen)
            {
                return []
            }
            // A save from a stale buffer is merged once it stands still: an editor may still be
            // writing it, and a merge of half a save would re-apply the others' changes onto it.
            if hasSaveEvidence, mergeStaleSave(splice) != nil {
                return scheduleConfirmation(
                    observed: splice.applied(to: context.document.bytes), reason: "a save from a stale buffer",
                    locks: editorLocks, vanished: vanishedHolders)
            }
            // A file renamed over the book file (sed -i, a script's temporary file) that was made
            // before versions booksd wrote since: the program read an older version. It is
            // complete (a rename is atomic), so it is merged at once.
            if editorLocks.isEmpty, let stale = mergeStaleSave(splice, bases: birthBases(identity)) {
                return applyStaleSave(stale, identity: identity)
            }
            return applyFileEdit(identity: identity) { $0.apply(splice: splice, source: .file, actor: $1) }
        }
    }

    /// Why `splice` makes the file look destructive (see `DestructiveChangeGuard`), if it does.
    func destructiveReason(_ splice: ByteSplice) -> String? {
        DestructiveChangeGuard().reason(old: context.document.bytes, oldBookCount: context.bookCount, splice: splice)
    }

    /// Applies a file edit with `change`: broadcast, then logs (subscribers first).
    mutating func applyFileEdit(
        identity: FileIdentity?,
        _ change: (inout BookLedger, ChangeActor) -> SequencedChangeSet?
    ) -> [ReconcilerAction] {
        let actor = fileActor(identity)
        supersedeConfirmation()
        fileState = identity == nil ? .missing : .present
        self.identity = identity
        var actions: [ReconcilerAction] = []
        let before = context.document.badLineCount
        if var applied = change(&context, actor) {
            let reverted = revertDetector.isEmpty ? nil : revertDetector.reverted(by: applied.changes)
            if reverted != nil {
                applied.reverts = revertDetector.revertedSeqs
                context.markReverts(revertDetector.revertedSeqs)  // kept in the change log and journal
                recentReverts = Array((recentReverts + revertDetector.revertedSeqs).suffix(16))
            }
            actions.append(.broadcast(applied))
            if let reverted {
                let ids = reverted.inserted.map { $0.id ?? "?" } + reverted.updated.map(\.id) + reverted.deleted
                actions.append(
                    .log(
                        .warning,
                        """
                        a file edit undid \(ids.count) client write(s) made seconds before (books \
                        \(ids.joined(separator: ", "))); if the program that saved read the file before those \
                        writes, they are lost
                        """
                    ))
            }
            let c = applied.changes
            actions.append(
                .log(
                    .info,
                    "file edit: \(c.inserted.count) inserted, \(c.updated.count) updated, \(c.deleted.count) deleted",
                    seq: applied.seq))
        }
        let after = context.document.badLineCount
        if after != before { actions.append(.log(.warning, "the book file has \(after) bad line(s)")) }
        return actions
    }
}

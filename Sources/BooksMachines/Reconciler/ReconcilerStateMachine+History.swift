import BooksCore

/// Continuing a context restored from saved history (see `HistoryRecovery`).
extension ReconcilerStateMachine {
    /// Creates the machine continuing `context` (restored from saved history): at
    /// ``ReconcilerInput/loaded(_:)`` the file is compared with it, and what changed while the
    /// daemon was down becomes the next change set (source `file`), guarded like any file edit.
    public init(configuration: Configuration, restoring context: BookLedger) {
        self.init(configuration: configuration, epoch: context.epoch)
        self.context = context
        resumingHistory = true
    }

    /// The file at start, compared with the context restored from saved history: applied as a
    /// file edit (one change set, or none), or held for confirmation when it looks destructive.
    mutating func resumed(_ snapshot: BookStoreSnapshot) -> [ReconcilerAction] {
        resumingHistory = false
        var actions: [ReconcilerAction] = [
            .log(.info, "resuming saved history at seq \(context.seq) (\(context.bookCount) books): comparing the file")
        ]
        switch snapshot {
        case .unavailable(let error): actions += applyFileChanges(.unavailable(error))
        case .missing: actions += applyFileChanges(.missing)
        case .present(let canonical, let identity):
            // The whole new content, not a splice of it: no copy of the changed window is made.
            if let reason = DestructiveChangeGuard().reason(
                oldBytes: context.document.bytes.count, oldBookCount: context.bookCount, newCount: canonical.count,
                containsPipe: { canonical.contains(0x7C) })
            {
                actions += scheduleConfirmation(observed: canonical, reason: reason)
            } else {
                lastLoggedProblem = nil
                actions += applyFileEdit(identity: identity) { $0.apply(bytes: canonical, source: .file, actor: $1) }
            }
        }
        return actions + afterFileChange()
    }
}

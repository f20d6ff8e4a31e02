import BooksCore
import BooksStore

/// Continuing a context restored from saved history (see `HistoryRecovery`).
extension ReconcilerStateMachine {
    /// Creates the machine continuing `context` (restored from saved history): at
    /// ``ReconcilerInput/loaded(_:)`` the file is compared with it, and what changed while the
    /// daemon was down becomes the next change set (source `file`), guarded like any file edit.
    public init(configuration: Configuration, restoring context: BookContext) {
        self.init(configuration: configuration, epoch: context.epoch)
        self.context = context
        resumingHistory = true
    }

    /// The file at start, compared with the context restored from saved history.
    mutating func resumed(_ snapshot: BookStoreSnapshot) -> [ReconcilerAction] {
        resumingHistory = false
        let comparison: FileComparison
        switch snapshot {
        case .unavailable(let error): comparison = .unavailable(error)
        case .missing: comparison = .missing
        case .present(let canonical, let identity):
            comparison =
                ByteComparison.equal(canonical, context.document.bytes)
                ? .unchanged(identity: identity)
                : .changed(ByteSplice(from: context.document.bytes, to: canonical), identity: identity)
        }
        let log = ReconcilerAction.log(
            .info, "resuming saved history at seq \(context.seq) (\(context.bookCount) books): comparing the file")
        return [log] + applyFileChanges(comparison) + afterFileChange()
    }
}

import BooksCore

/// A store that appears while the daemon runs (a file created in or moved into the watched
/// folder) and one that goes: announced alike, as a change set inserting, or deleting, its books.
extension ReconcilerStateMachine {
    /// The first read of an appearing store's file. With no restored context the store starts
    /// empty at seq 0 and the file's books become change set 1 (source `file`, every book
    /// inserted), so a subscriber already following every store sees them as it sees the deletes
    /// of a store whose file leaves. A restored context (saved history) is compared as at any
    /// start; a file that is missing or unusable is handled as at a start.
    mutating func appeared(_ snapshot: BookStoreSnapshot) -> [ReconcilerAction] {
        guard !resumingHistory, context.seq == 0, context.bookCount == 0,
            case .present(let canonical, let identity) = snapshot
        else { return loaded(snapshot) }
        lastLoggedProblem = nil
        var actions: [ReconcilerAction] = []
        actions += applyFileEdit(identity: identity) { $0.apply(bytes: canonical, source: .file, actor: $1) }
        actions += Self.loadedLog(context.document)
        return actions + afterFileChange()
    }

    /// The store is removed: a last change set deletes every book (nothing when it has none), so
    /// every subscriber of the store sees its books go, as it saw them come.
    mutating func retired() -> [ReconcilerAction] {
        guard !context.document.bytes.isEmpty else { return [] }
        return applyFileEdit(identity: nil) { $0.apply(bytes: [], source: .file, actor: $1) } + [.publishStatus]
    }
}

import BooksCore

/// Who made the replica's hand edits that the owner has not taken yet: each book's last hand
/// edit's actor (as the replica's own watcher attributed it: the editor's evidence, else the
/// file's owner), so the edit is sent to the owner under that actor.
///
/// Holds at most `capacity` books; a book beyond it (a hand edit of more books at once) is
/// attributed to the newest hand edit's actor. A book is dropped once the owner took its edit.
struct ReplicaEditActors: Sendable {
    /// The most books whose actor is kept one by one.
    static let capacity = 10_000

    private var byID: [String: ChangeActor] = [:]
    private var latest: ChangeActor?

    /// Notes the actor of `change` for its books, when it is a hand edit of the local file (the
    /// replica's own writes of the owner's change sets are not).
    mutating func note(_ change: SequencedChangeSet) {
        guard change.source == .file, let actor = change.actor else { return }
        latest = actor
        let changes = change.changes
        let ids = changes.inserted.map(\.id) + changes.updated.map(\.new.id) + changes.deleted.map(\.id)
        for id in ids where byID.count < Self.capacity || byID[id] != nil { byID[id] = actor }
    }

    /// The actor of an edit of `ids`: what their hand edits' actors have in common (nil when no
    /// hand edit of them was seen, e.g. rows found at start or edits queued before a restart).
    func actor(of ids: [String]) -> ChangeActor? {
        var actors = ids.compactMap { byID[$0] }
        if actors.count < ids.count, let latest, !actors.isEmpty || byID.count >= Self.capacity {
            actors.append(latest)
        }
        return ChangeActor.common(actors)
    }

    /// The owner took the edits of `ids`.
    mutating func sent(_ ids: [String]) {
        for id in ids { byID[id] = nil }
        if byID.isEmpty { byID = [:] }
    }
}

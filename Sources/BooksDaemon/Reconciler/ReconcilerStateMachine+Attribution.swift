import BooksCore
import BooksStore

/// Who a change set is attributed to (``ChangeActor``): the writers of a group commit, or for a
/// hand edit the editor's evidence when the engine found some, else the file's owner.
extension ReconcilerStateMachine {
    /// The actor of a hand edit of the file whose identity is `identity` (else the one last seen).
    func fileActor(_ identity: FileIdentity? = nil) -> ChangeActor {
        let owner = (identity ?? self.identity).map { UInt32($0.owner) }
        return ChangeActor.fileEdit(
            evidence: editorEvidence, owner: owner, ownerName: owner.flatMap { attribution.userName($0) })
    }

    /// The source and actor of a commit of `writes` (none: the save only gave ids to rows typed by
    /// hand, a hand edit). NATS only when every write came over NATS; the actor is what all the
    /// writers have in common.
    func commitAttribution(_ writes: [PendingWrite]) -> (ChangeSource, ChangeActor?) {
        guard !writes.isEmpty else { return (.file, fileActor()) }
        let source: ChangeSource =
            writes.allSatisfy { $0.source == .nats } ? .nats : writes.allSatisfy { $0.source == .undo } ? .undo : .client
        return (source, ChangeActor.common(writes.compactMap(\.actor)))
    }
}

/// What the machine needs from outside to attribute hand edits: the user name of a uid. The
/// engine passes a cached lookup of the system's user database; tests pass a table.
public struct ReconcilerAttribution: Sendable {
    /// The name of user `uid`, nil when unknown.
    public var userName: @Sendable (UInt32) -> String?

    /// Creates the lookup.
    public init(userName: @escaping @Sendable (UInt32) -> String? = { _ in nil }) {
        self.userName = userName
    }
}

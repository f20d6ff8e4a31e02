import BooksCore

/// Who a change set is attributed to (``ChangeActor``): the writers of a group commit, or for a
/// hand edit the editor's evidence when the engine found some, else the file's owner.
extension ReconcilerStateMachine {
    /// The actor of a hand edit of the file whose identity is `identity` (else the one last seen):
    /// the evidence the engine gave, else the first editor lock seen with this change (a vim swap
    /// file's user, host and pid), else the file's owner.
    func fileActor(_ identity: FileIdentity? = nil) -> ChangeActor {
        let owner = (identity ?? self.identity).map { UInt32($0.owner) }
        return ChangeActor.fileEdit(
            evidence: editorEvidence ?? editorLocks.first.map(Self.evidence),
            owner: owner, ownerName: owner.flatMap { attribution.userName($0) })
    }

    /// What an editor's lock says about who edits: user, host, pid and the editor.
    static func evidence(_ lock: EditorLock) -> EditorEvidence {
        switch lock {
        case .swap(let header):
            return EditorEvidence(
                user: header.user, host: header.host, pid: Int32(truncatingIfNeeded: header.pid),
                editor: header.isNano ? "nano" : "vim")
        case .emacs(let lock):
            return EditorEvidence(
                user: lock.user, host: lock.host, pid: Int32(truncatingIfNeeded: lock.pid), editor: "emacs")
        }
    }

    /// The source and actor of a commit of `writes` (none: the save only gave ids to rows typed by
    /// hand, a hand edit). NATS only when every write came over NATS; the actor is what all the
    /// writers have in common.
    func commitAttribution(_ writes: [PendingWrite]) -> (ChangeSource, ChangeActor?) {
        guard !writes.isEmpty else { return (.file, fileActor()) }
        let source: ChangeSource =
            writes.allSatisfy { $0.source == .nats }
            ? .nats : writes.allSatisfy { $0.source == .undo } ? .undo : .client
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

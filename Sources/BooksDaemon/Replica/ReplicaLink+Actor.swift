import BooksCore
import BooksPlatform
import BooksProtocol
import Glibc

/// Who made what a replica sends to its owner: every request carries a `Books-Actor` header, so
/// the owner's history (`log`, `blame`) names who on which replica host made the change.
extension ReplicaLink {
    /// The `Books-Actor` header declaring `actor`, with this host's name when it names none.
    static func actorHeader(_ actor: ChangeActor) -> [(name: String, value: String)] {
        var declared = actor
        if declared.host == nil { declared.host = ProcessIdentity.hostName() }
        return [(ActorHeader.name, ActorHeader.value(declaring: declared))]
    }

    /// Who made a client request on the replica's socket: the peer the kernel reported
    /// (`SO_PEERCRED`: uid, user, pid, program).
    static func clientActor(_ peer: PeerCredentials) -> ChangeActor { peer.declared ?? peer.actor }

    /// Who made the hand edits `write` sends, as the replica's watcher attributed them (the
    /// editor's evidence, else the file's owner and editor `unknown`, as the owner attributes a
    /// hand edit of its own file); the file's owner when no hand edit of its books was seen
    /// (rows found at start, or edits queued before a restart).
    func handEditActor(of write: ReplicaWrite) -> ChangeActor {
        if let actor = editActors.withLock({ $0.actor(of: write.ids) }) { return actor }
        var info = stat()
        guard stat(engine.store.configuration.path, &info) == 0 else { return ChangeActor(editor: "unknown") }
        return ChangeActor.fileEdit(
            evidence: nil, owner: info.st_uid, ownerName: ProcessIdentity.userName(of: info.st_uid))
    }
}

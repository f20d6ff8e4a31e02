import BooksCore

/// The credentials of the process at the other end of a Unix socket, as the kernel reported them
/// at `accept` time (`SO_PEERCRED`); they cannot be forged by the client.
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id.
    public let pid: Int32
    /// The peer's effective user id.
    public let uid: UInt32
    /// The peer's effective group id.
    public let gid: UInt32
    /// The user's name, looked up once when the connection was accepted (nil when unknown).
    public let user: String?
    /// The peer's program (`/proc/PID/comm`), read once when the connection was accepted.
    public let program: String?

    /// For a NATS request: who the requester declared it is (its `Books-Actor` header, marked
    /// `via` `nats`; not checked); nil for a socket peer and a NATS request without the header.
    public let declared: ChangeActor?

    /// Creates credentials.
    public init(
        pid: Int32, uid: UInt32, gid: UInt32, user: String? = nil, program: String? = nil,
        declared: ChangeActor? = nil
    ) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.user = user
        self.program = program
        self.declared = declared
    }

    /// The actor of the peer's writes.
    public var actor: ChangeActor { ChangeActor(uid: uid, user: user, pid: pid, program: program) }

    /// The actor of a NATS request's writes: what the requester declared, else ``ChangeActor/nats``.
    public var natsActor: ChangeActor { declared ?? .nats }
}

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

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32, user: String? = nil, program: String? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.user = user
        self.program = program
    }

    /// The actor of the peer's writes.
    public var actor: ChangeActor { ChangeActor(uid: uid, user: user, pid: pid, program: program) }
}

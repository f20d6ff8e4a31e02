/// The credentials of the process at the other end of a Unix socket, as the kernel reported them
/// at `accept` time (`SO_PEERCRED`); they cannot be forged by the client.
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id.
    public let pid: Int32
    /// The peer's effective user id.
    public let uid: UInt32
    /// The peer's effective group id.
    public let gid: UInt32

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

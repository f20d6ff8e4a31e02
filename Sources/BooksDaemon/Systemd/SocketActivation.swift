import CSystemd
import Glibc

/// Socket activation (`sd_listen_fds(3)`): the listening sockets systemd passed to this process.
public enum SocketActivation {
    /// The inherited listening `AF_UNIX` stream sockets (starting at fd 3), or `[]` when the process
    /// was not socket-activated (`LISTEN_FDS` unset, or `LISTEN_PID` is another process).
    ///
    /// `LISTEN_FDS`, `LISTEN_PID` and `LISTEN_FDNAMES` are removed from the environment so children do
    /// not inherit them; call once, early, before other threads read the environment. The returned
    /// descriptors get `FD_CLOEXEC`.
    /// - Throws: `SystemdError.unexpectedInheritedDescriptor` if any inherited descriptor is not a
    ///   listening Unix stream socket; `.listenFdsFailed` if the variables are malformed.
    public static func listeningSockets() throws(SystemdError) -> [Int32] {
        let count = sd_listen_fds(1)
        if count < 0 { throw .listenFdsFailed(errno: -count) }
        var fds: [Int32] = []
        for fd in SD_LISTEN_FDS_START..<(SD_LISTEN_FDS_START + count) {
            guard sd_is_socket_unix(fd, sockStreamValue, 1, nil, 0) > 0 else {
                throw .unexpectedInheritedDescriptor(fd: fd)
            }
            fds.append(fd)
        }
        return fds
    }

    /// `SOCK_STREAM` as a plain `Int32` (Glibc imports it as an enum on Linux).
    static let sockStreamValue: Int32 = 1  // SOCK_STREAM on Linux (stable ABI value)
}

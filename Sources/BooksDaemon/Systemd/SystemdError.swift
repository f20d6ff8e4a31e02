import Glibc

/// Failures of the thin libsystemd wrappers; each names the call and the errno text.
public enum SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `sd_notify` returned a negative errno.
    case notifyFailed(errno: Int32)
    /// `sd_listen_fds` returned a negative errno.
    case listenFdsFailed(errno: Int32)
    /// An inherited descriptor is not a listening `AF_UNIX` stream socket.
    case unexpectedInheritedDescriptor(fd: Int32)

    /// One line explaining the failure.
    public var description: String {
        switch self {
        case .notifyFailed(let e): "sd_notify failed: \(Self.text(e))"
        case .listenFdsFailed(let e): "sd_listen_fds failed: \(Self.text(e))"
        case .unexpectedInheritedDescriptor(let fd):
            """
            inherited file descriptor \(fd) is not a listening AF_UNIX stream socket (check the .socket unit: \
            ListenStream= must be a path)
            """
        }
    }

    static func text(_ e: Int32) -> String { String(cString: strerror(e)) + " (errno \(e))" }
}

import BooksPlatform

/// Why a `SocketServer` could not be created or started.
public enum SocketServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A live server already answers on the path; it was left alone.
    case addressInUse(path: String)
    /// Something that is not a socket exists at the path; it was left alone.
    case pathOccupied(path: String)
    /// The path does not fit in `sockaddr_un`.
    case pathTooLong(path: String)
    /// Neither a path nor an inherited socket was given.
    case noAddress
    /// `start` was called twice, or after `shutdown`.
    case alreadyStarted
    /// A system call failed.
    case systemCall(String, errno: Int32)
    /// The server thread could not be started.
    case threadStartFailed(DedicatedThreadError)

    /// A human-readable explanation naming the path.
    public var description: String {
        switch self {
        case .addressInUse(let path): return "another booksd is already serving \(path)"
        case .pathOccupied(let path): return "\(path) exists and is not a socket"
        case .pathTooLong(let path): return "socket path too long: \(path)"
        case .noAddress: return "no socket path and no inherited socket"
        case .alreadyStarted: return "the server was already started"
        case .systemCall(let name, let errno): return "\(name) failed: errno \(errno)"
        case .threadStartFailed(let error): return "the socket server cannot run: \(error)"
        }
    }
}

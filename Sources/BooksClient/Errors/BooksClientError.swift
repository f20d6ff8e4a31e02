import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Every failure the client library reports.
///
/// Guarantees: daemon-side failures are always `.daemon` and carry the daemon's `ErrorCode`
/// (a `conflict` carries the book's current values in `ProtocolError.current`); transport failures
/// are `.cannotConnect`, `.connectionClosed` or `.io`; a daemon that breaks the protocol yields
/// `.protocolError`.
public enum BooksClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket at `path` could not be connected (`errno` as reported by `socket`/`connect`).
    case cannotConnect(path: String, errno: Int32)
    /// The socket path does not fit in `sockaddr_un` (108 bytes).
    case socketPathTooLong(String)
    /// The daemon violated the protocol (an unreadable line; code `too-large`: a line longer than
    /// the client's `maxLineLength`), or refused the handshake.
    case protocolError(ProtocolError)
    /// The daemon answered a request with an error.
    case daemon(ProtocolError)
    /// The connection ended before the reply arrived (daemon stopped, crashed or disconnected us).
    case connectionClosed
    /// A read or write on the socket failed with `errno`, or the reader thread could not be
    /// started (`errno` is then what `pthread_create` returned, e.g. `EAGAIN`).
    case io(operation: String, errno: Int32)
    /// The connection already has an active change feed (one `subscribe` per connection).
    case alreadySubscribed
    /// The client was closed by `close()`.
    case closed
    /// A NATS transport failure (`NATSBooksClient`, `NATSFeed`): unreachable, no responder, timeout.
    case nats(String)
    /// A feed's consumer fell `limit` items behind (see `FeedBufferPolicy`); the feed ended
    /// after the buffered items.
    case consumerTooSlow(limit: Int)

    /// A short human explanation; `.cannotConnect` includes a hint on how to start the daemon.
    public var description: String {
        switch self {
        case .cannotConnect(let path, let code):
            return "cannot connect to booksd at \(path): \(Self.errnoText(code))\n" + Self.startHint
        case .socketPathTooLong(let path):
            return "socket path is too long (max 107 bytes): \(path)"
        case .protocolError(let error):
            return "protocol error: \(error.message) (\(error.code.rawValue))"
        case .daemon(let error):
            return error.message.isEmpty ? error.code.rawValue : "\(error.message) (\(error.code.rawValue))"
        case .connectionClosed:
            return "the connection to booksd was closed"
        case .io(let operation, let code):
            return "\(operation) failed: \(Self.errnoText(code))"
        case .alreadySubscribed:
            return "this connection already has an active subscription"
        case .closed:
            return "the client is closed"
        case .nats(let text):
            return "NATS: \(text)"
        case .consumerTooSlow(let limit):
            return "the feed's consumer fell \(limit) items behind; the feed was ended (resume from the last item seen)"
        }
    }

    /// How to start the daemon, shown with `.cannotConnect`.
    public static let startHint =
        "hint: is booksd running? start it with `booksd --file books.txt` "
        + "or `systemctl start booksd.socket`, or pass --socket PATH / set BOOKS_SOCKET"

    /// True when the failure is the caller's lack of permission (on the socket or reported by the daemon).
    public var isPermissionDenied: Bool {
        switch self {
        case .cannotConnect(_, let code): return code == EACCES || code == EPERM
        case .daemon(let error): return error.code == .permissionDenied
        default: return false
        }
    }

    /// The daemon's error code, when the daemon reported one.
    public var daemonCode: ProtocolError.ErrorCode? {
        if case .daemon(let error) = self { return error.code }
        return nil
    }

    /// True for failures after which reconnecting may help (transport problems, daemon stopping).
    public var isTransient: Bool {
        switch self {
        case .cannotConnect, .connectionClosed, .io, .nats: return true
        case .daemon(let error), .protocolError(let error):
            return error.code == .shuttingDown || error.code == .limitExceeded
        case .socketPathTooLong, .alreadySubscribed, .closed, .consumerTooSlow: return false
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

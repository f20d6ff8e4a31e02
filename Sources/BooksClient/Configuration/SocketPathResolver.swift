#if canImport(Glibc)
import Glibc
#endif

/// Finds the daemon's socket the way `booksctl` documents it.
///
/// Order: the explicit path (`--socket`); else `$BOOKS_SOCKET` (if non-empty); else
/// `$XDG_RUNTIME_DIR/booksd.sock` if `XDG_RUNTIME_DIR` is set and that file exists; else
/// `./.booksd.sock` if it exists (the daemon's default next to `./books.txt`); else
/// `/run/booksd/booksd.sock` (the system service's socket).
public struct SocketPathResolver: Sendable {
    /// Where a resolved path came from (for messages).
    public enum Origin: String, Sendable, Hashable {
        /// Given explicitly (`--socket`).
        case option = "--socket"
        /// From `$BOOKS_SOCKET`.
        case environment = "BOOKS_SOCKET"
        /// `$XDG_RUNTIME_DIR/booksd.sock` (a per-user daemon).
        case runtimeDirectory = "XDG_RUNTIME_DIR"
        /// `./.booksd.sock` (a daemon started next to `./books.txt`).
        case workingDirectory = "./.booksd.sock"
        /// `/run/booksd/booksd.sock` (the system service).
        case system = "default"
    }

    /// The system-wide default.
    public static let systemPath = "/run/booksd/booksd.sock"
    /// The daemon's default in the working directory.
    public static let localPath = "./.booksd.sock"

    private let environment: @Sendable (String) -> String?
    private let fileExists: @Sendable (String) -> Bool

    /// A resolver reading the process environment and file system.
    public init() {
        self.init(
            environment: { name in getenv(name).map { String(cString: $0) } },
            fileExists: { path in access(path, F_OK) == 0 })
    }

    /// A resolver with injected environment and file-existence checks (for tests).
    public init(environment: @escaping @Sendable (String) -> String?, fileExists: @escaping @Sendable (String) -> Bool)
    {
        self.environment = environment
        self.fileExists = fileExists
    }

    /// The socket path to use, and why.
    public func resolve(explicit: String?) -> (path: String, origin: Origin) {
        if let explicit, !explicit.isEmpty { return (explicit, .option) }
        if let env = environment("BOOKS_SOCKET"), !env.isEmpty { return (env, .environment) }
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            let path = runtime.hasSuffix("/") ? runtime + "booksd.sock" : runtime + "/booksd.sock"
            if fileExists(path) { return (path, .runtimeDirectory) }
        }
        if fileExists(Self.localPath) { return (Self.localPath, .workingDirectory) }
        return (Self.systemPath, .system)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Finds the daemon's socket the way `booksctl` documents it.
///
/// Order: the explicit path (`--socket`); else `$BOOKS_SOCKET` (if non-empty); else
/// `$XDG_RUNTIME_DIR/booksd.sock` if `XDG_RUNTIME_DIR` is set and that file exists; else
/// `./.booksd.sock` if it exists and can be trusted — a socket (not a symbolic link) owned by the
/// caller's effective user or by root, so that another user who can write to the working
/// directory cannot plant a socket that collects the caller's requests; else
/// `/run/booksd/booksd.sock` (the system service's socket). An untrusted `./.booksd.sock` is
/// passed over, with a warning (`resolveWithWarning`).
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
    private let untrustedReason: @Sendable (String) -> String?

    /// A resolver reading the process environment and file system.
    public init() {
        self.init(
            environment: { name in getenv(name).map { String(cString: $0) } },
            fileExists: { path in access(path, F_OK) == 0 },
            untrustedReason: SocketPathResolver.untrustedReason(of:))
    }

    /// A resolver with injected environment and file checks (for tests). `untrustedReason` says
    /// why an existing `./.booksd.sock` must not be used (nil: it may); by default every one may.
    public init(
        environment: @escaping @Sendable (String) -> String?, fileExists: @escaping @Sendable (String) -> Bool,
        untrustedReason: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.environment = environment
        self.fileExists = fileExists
        self.untrustedReason = untrustedReason
    }

    /// The socket path to use, and why.
    public func resolve(explicit: String?) -> (path: String, origin: Origin) {
        let resolved = resolveWithWarning(explicit: explicit)
        return (resolved.path, resolved.origin)
    }

    /// The socket path to use, why, and a warning when an untrusted `./.booksd.sock` was passed over.
    public func resolveWithWarning(explicit: String?) -> (path: String, origin: Origin, warning: String?) {
        if let explicit, !explicit.isEmpty { return (explicit, .option, nil) }
        if let env = environment("BOOKS_SOCKET"), !env.isEmpty { return (env, .environment, nil) }
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            let path = runtime.hasSuffix("/") ? runtime + "booksd.sock" : runtime + "/booksd.sock"
            if fileExists(path) { return (path, .runtimeDirectory, nil) }
        }
        var warning: String?
        if fileExists(Self.localPath) {
            guard let reason = untrustedReason(Self.localPath) else { return (Self.localPath, .workingDirectory, nil) }
            warning = "ignoring \(Self.localPath): \(reason); using \(Self.systemPath) (pass --socket to choose)"
        }
        return (Self.systemPath, .system, warning)
    }

    /// Why the socket at `path` must not be trusted: not a socket (a symbolic link is not
    /// followed), or owned by a user other than the caller's effective user and root; nil when it
    /// may be used.
    public static func untrustedReason(of path: String) -> String? {
        var s = stat()
        guard lstat(path, &s) == 0 else { return "it cannot be examined (\(String(cString: strerror(errno))))" }
        guard s.st_mode & S_IFMT == S_IFSOCK else {
            return s.st_mode & S_IFMT == S_IFLNK ? "it is a symbolic link" : "it is not a socket"
        }
        guard s.st_uid == geteuid() || s.st_uid == 0 else {
            return "it is owned by uid \(s.st_uid), not by you or root"
        }
        return nil
    }
}

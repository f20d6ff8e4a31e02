import BooksPlatform
import Glibc

/// User names by uid from the system's user database (`getpwuid_r`), each looked up once and
/// kept for the daemon's lifetime (a renamed user keeps its old name until restart), so
/// attributing a change or accepting a connection costs one lookup per user, not per request.
final class UserNames: Sendable {
    /// The daemon's cache.
    static let shared = UserNames()

    private let names = Locked<[UInt32: String?]>([:])
    private let lookup: @Sendable (UInt32) -> String?

    /// Creates a cache over `lookup` (the system's user database by default).
    init(lookup: @escaping @Sendable (UInt32) -> String? = UserNames.system) {
        self.lookup = lookup
    }

    /// The name of `uid`, nil when the database has none.
    func name(of uid: UInt32) -> String? {
        if let known = names.withLock({ $0[uid] }) { return known }
        let found = lookup(uid)
        names.withLock { $0[uid] = .some(found) }
        return found
    }

    /// The name of `uid` in the system's user database.
    static func system(_ uid: UInt32) -> String? { ProcessIdentity.userName(of: uid) }
}

/// The name a process gave itself (`/proc/PID/comm`: at most 15 bytes, the executable's name
/// unless it renamed itself); nil when the process is gone. procfs answers from memory, never
/// from a disk, so the server thread may read it at accept.
func processName(pid: Int32) -> String? { ProcessIdentity.processName(pid: pid) }

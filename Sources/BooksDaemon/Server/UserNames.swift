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
    static func system(_ uid: UInt32) -> String? {
        var pwd = passwd()
        var buffer = [CChar](repeating: 0, count: 4096)
        var found: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid, &pwd, &buffer, buffer.count, &found) == 0, found != nil, let name = pwd.pw_name else {
            return nil
        }
        return String(cString: name)
    }
}

/// The name a process gave itself (`/proc/PID/comm`: at most 15 bytes, the executable's name
/// unless it renamed itself); nil when the process is gone. procfs answers from memory, never
/// from a disk, so the server thread may read it at accept.
func processName(pid: Int32) -> String? {
    guard pid > 0 else { return nil }
    let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    var bytes = buffer.prefix(count)
    if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
    return String(decoding: bytes, as: UTF8.self)
}

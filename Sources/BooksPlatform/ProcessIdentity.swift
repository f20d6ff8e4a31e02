import Glibc

/// What the system says about a process and its user: read from the user database, procfs and
/// `gethostname`, never from a disk that could stall (procfs answers from memory).
public enum ProcessIdentity {
    /// The name of `uid` in the system's user database (`getpwuid_r`), nil when it has none.
    public static func userName(of uid: UInt32) -> String? {
        var pwd = passwd()
        var buffer = [CChar](repeating: 0, count: 4096)
        var found: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid, &pwd, &buffer, buffer.count, &found) == 0, found != nil, let name = pwd.pw_name else {
            return nil
        }
        return String(cString: name)
    }

    /// The name a process gave itself (`/proc/PID/comm`: at most 15 bytes, the executable's name
    /// unless it renamed itself); nil when the process is gone.
    public static func processName(pid: Int32) -> String? {
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

    /// This machine's host name, nil when it has none.
    public static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return nil }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? nil : host
    }
}

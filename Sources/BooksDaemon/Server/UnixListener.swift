import CLinux
import Glibc

/// Creating, adopting and probing listening Unix stream sockets. All sockets are `SOCK_CLOEXEC`.
enum UnixListener {
    /// Binds and listens on `path`, replacing a stale socket file (one nobody answers on) but
    /// never a live one or a non-socket file. The returned fd is non-blocking.
    ///
    /// Permissions: the socket's inode gets `mode` with `fchmod` *before* bind — Linux creates
    /// the file with the socket inode's mode minus the umask — so the path never exists with
    /// more permissions than `mode`; a chmod after bind then restores bits the umask removed.
    /// No temporary name and no process-wide umask change. `afterBind` (tests only) runs between
    /// bind and that chmod.
    static func bind(
        path: String, mode: mode_t, backlog: Int32 = 512,
        afterBind: (String) -> Void = { _ in }
    ) throws(SocketServerError) -> Int32 {
        var addr = sockaddr_un()
        let length = books_make_sockaddr_un(path, &addr)
        guard length > 0 else { throw .pathTooLong(path: path) }
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .systemCall("socket", errno: errno) }
        guard fchmod(fd, mode) == 0 else {
            let err = errno
            close(fd)
            throw .systemCall("fchmod(socket)", errno: err)
        }
        var attempts = 0
        while true {
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(length)) }
            }
            if rc == 0 { break }
            let err = errno
            attempts += 1
            guard err == EADDRINUSE, attempts < 3 else {
                close(fd)
                throw .systemCall("bind(\(path))", errno: err)
            }
            // Something exists at the path: replace it only if it is a socket nobody serves.
            var st = stat()
            if lstat(path, &st) != 0 { continue }  // vanished meanwhile: retry
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                close(fd)
                throw .pathOccupied(path: path)
            }
            switch probe(addr: addr, length: length) {
            case .live:
                close(fd)
                throw .addressInUse(path: path)
            case .stale:
                _ = unlink(path)
            }
        }
        afterBind(path)
        guard chmod(path, mode) == 0 else {
            let err = errno
            close(fd)
            _ = unlink(path)
            throw .systemCall("chmod(\(path))", errno: err)
        }
        guard listen(fd, backlog) == 0 else {
            let err = errno
            close(fd)
            _ = unlink(path)
            throw .systemCall("listen", errno: err)
        }
        return fd
    }

    /// Prepares an inherited (socket-activated) listening fd: non-blocking and close-on-exec.
    static func adopt(_ fd: Int32) throws(SocketServerError) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .systemCall("fcntl", errno: errno) }
        let fdFlags = fcntl(fd, F_GETFD)
        guard fdFlags >= 0, fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) == 0 else {
            throw .systemCall("fcntl", errno: errno)
        }
        return fd
    }

    enum ProbeResult { case live, stale }

    /// Connects without blocking: refused → stale; accepted or backlog full → live.
    private static func probe(addr: sockaddr_un, length: Int32) -> ProbeResult {
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .live }
        defer { close(fd) }
        var addr = addr
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        if rc == 0 { return .live }
        return errno == ECONNREFUSED || errno == ENOENT ? .stale : .live
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (best effort).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }
}

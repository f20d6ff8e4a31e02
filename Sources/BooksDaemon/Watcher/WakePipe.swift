import Glibc

/// A non-blocking, close-on-exec pipe used to wake a watcher thread from another thread.
///
/// Sendable: it only holds two immutable descriptor numbers; `wake()` is a `write(2)`, which is
/// thread-safe. The owner closes it once the thread using the read end has been joined.
struct WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    static func make() throws(FileWatcherError) -> WakePipe {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .systemCallFailed(call: "pipe", errno: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return WakePipe(readEnd: fds[0], writeEnd: fds[1])
    }

    /// Makes the read end readable (and, for an inotify watch on it, emits `IN_MODIFY`).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Discards pending wake bytes.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    /// Waits up to `milliseconds` for a wake; returns true when woken.
    func wait(milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        let rc = poll(&pfd, 1, milliseconds)
        return rc > 0
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}

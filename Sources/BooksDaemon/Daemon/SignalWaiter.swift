import BooksPlatform
import CLinux
import Glibc

/// Receives the daemon's control signals (SIGTERM, SIGINT, SIGHUP) on a thread of its own, so
/// none is ever lost and none ever kills the daemon.
///
/// `install()` runs once, first thing in `booksd`'s `main` (before `Daemon.run`): a handler that
/// only writes the signal's number to a pipe is installed, and the signals are blocked in the
/// calling (main) thread, so the threads it creates afterwards (epoll, inotify: blocked in
/// `epoll_wait`/`select`) inherit the mask and are never interrupted. `start` runs the thread
/// `booksd-signals`, which unblocks them for itself, reads the pipe and hands each signal to the
/// daemon's `ServiceGroup` (one that arrives while the services start waits there until they run).
public enum SignalWaiter {
    /// The signals the daemon handles.
    public static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// The pipe's read end, once installed.
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// Installs the handler and blocks the signals in the calling thread (the main thread,
    /// before any other thread starts). Returns false when the pipe or a handler cannot be set.
    @discardableResult
    public static func install() -> Bool {
        guard readEnd < 0 else { return true }  // once per process
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = books_set_cloexec(fd) }
        // The write end never blocks the handler (a full pipe already has signals to handle).
        _ = books_set_nonblocking(ends[1])
        readEnd = ends[0]
        var ok = true
        for number in signals where books_route_signal_to_pipe(ends[1], number) != 0 { ok = false }
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return ok
    }

    /// Starts the thread `booksd-signals`, which calls `handler` with each signal, in order, one
    /// at a time, for the life of the process.
    public static func start(
        _ handler: @escaping @Sendable (Int32) -> Void
    ) throws(DedicatedThreadError) -> DedicatedThread {
        let fd = readEnd
        return try DedicatedThread.start(name: "booksd-signals") {
            var set = signalSet()
            pthread_sigmask(SIG_UNBLOCK, &set, nil)  // this thread takes them
            var byte: UInt8 = 0
            while true {
                let n = read(fd, &byte, 1)
                if n == 1 {
                    handler(Int32(byte))
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return  // the pipe is gone: the process is exiting
                }
            }
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}

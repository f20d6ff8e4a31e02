import BooksPlatform
import Glibc

/// Why a ``FileWatcher`` could not start (or could not re-establish its watch).
public enum FileWatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path cannot be watched (empty, ends in `/`, `.` or `..`).
    case invalidPath(String)
    /// `start` was called on a watcher that is already running.
    case alreadyStarted
    /// libinotifytools is a process-wide singleton: only one ``InotifyHub`` may run per process.
    /// `activePath` names the one that holds it.
    case anotherInotifyWatcherActive(activePath: String)
    /// `inotifytools_initialize()` (i.e. `inotify_init`) failed.
    case inotifyInitializationFailed(errno: Int32)
    /// The inotify descriptor landed at or above `FD_SETSIZE` (1024), where libinotifytools'
    /// `select()` would abort the process. Start the hub (or call
    /// ``InotifyHub/prepare()``) before the process opens many descriptors.
    case descriptorAboveSelectLimit(fd: Int32)
    /// Adding the inotify watch on `directory` failed (missing directory, permission, or the
    /// `fs.inotify.max_user_watches` limit for `ENOSPC`).
    case watchFailed(directory: String, errno: Int32)
    /// A system call needed by the watcher itself (`pipe`, …) failed.
    case systemCallFailed(call: String, errno: Int32)
    /// The watcher's dedicated thread could not be started.
    case threadStartFailed(DedicatedThreadError)

    /// A one-line message with the `strerror` text and a hint where one helps.
    public var description: String {
        switch self {
        case .invalidPath(let path):
            return "cannot watch '\(path)': not a file path"
        case .alreadyStarted:
            return "the file watcher is already running"
        case .anotherInotifyWatcherActive(let active):
            return "libinotifytools is already in use in this process (by \(active)); "
                + "it is a process-wide singleton, stop that user first"
        case .inotifyInitializationFailed(let code):
            var hint = ""
            if code == EMFILE { hint = " (limit fs.inotify.max_user_instances or RLIMIT_NOFILE reached)" }
            return "inotifytools_initialize failed: \(Self.text(code))\(hint)"
        case .descriptorAboveSelectLimit(let fd):
            return "the inotify descriptor is \(fd), not below FD_SETSIZE (1024) that libinotifytools' select() "
                + "requires; start the hub (or InotifyHub.prepare()) before opening many descriptors"
        case .watchFailed(let directory, let code):
            var hint = ""
            if code == ENOSPC { hint = " (inotify watch limit fs.inotify.max_user_watches reached)" }
            if code == ENOENT { hint = " (directory does not exist)" }
            if code == EACCES { hint = " (permission denied on the directory)" }
            if code == ENOTDIR { hint = " (not a directory)" }
            return "cannot watch directory '\(directory)': \(Self.text(code))\(hint)"
        case .systemCallFailed(let call, let code):
            return "\(call) failed: \(Self.text(code))"
        case .threadStartFailed(let error):
            let hint = error.code == EAGAIN ? " (out of threads: RLIMIT_NPROC or kernel.threads-max)" : ""
            return "the file watcher cannot run: \(error)\(hint)"
        }
    }

    static func text(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}

import BooksCore
import CLinux
import Glibc

/// Watches the version of a file that a rename has just replaced, for a writer that opened the
/// path an instant before the rename: its write would go to a file nobody reads any more.
///
/// It holds a read lease on the replaced inode. Taking the lease fails when some process has
/// the file open for writing (`writerOpen`); once taken, any open of the file for writing breaks
/// it and that opener waits until the lease is released, so `writerArrived` tells whether one
/// came. Without leases (a file of another user and no CAP_LEASE, a file system without leases)
/// the guard is `unguarded` and reports nothing. Releases the lease and closes the file on deinit.
final class ReplacedVersionGuard {
    enum State: Equatable {
        /// The lease is held.
        case guarded
        /// Some process has the replaced version open for writing.
        case writerOpen
        /// Leases are not available here.
        case unguarded
    }

    private let fd: Int32
    private(set) var state: State

    /// Opens the file at `path` (the replaced version, under its temporary name) and takes the lease.
    init(path: String) {
        books_ignore_sigio_if_default()
        fd = Interrupted.retry { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        if fd < 0 {
            state = .unguarded
        } else if books_take_read_lease(fd) == 0 {
            state = .guarded
        } else {
            state = errno == EAGAIN ? .writerOpen : .unguarded
        }
    }

    /// Whether a process opened the replaced version for writing since the lease was taken.
    var writerArrived: Bool { state == .guarded && books_read_lease_is_intact(fd) == 0 }

    /// Lets a waiting writer proceed.
    func release() {
        if state == .guarded { _ = books_release_lease(fd) }
        state = .unguarded
    }

    /// After `writerArrived`: releases the lease, waits until the writer is done (no process has
    /// the file open for writing, at most `timeoutMilliseconds`), and returns the content then —
    /// nil when it is still `checked` (the writer wrote nothing).
    func contentAfterWriters(checked: FileIdentity, timeoutMilliseconds: Int = 2_000) -> [UInt8]? {
        release()
        let deadline = Self.nowMilliseconds() + Int64(timeoutMilliseconds)
        var sawWriter = false
        while Self.nowMilliseconds() < deadline {
            if books_take_read_lease(fd) == 0 {
                _ = books_release_lease(fd)
                // No writer has it open: done if one was seen or the file changed, else the
                // writer's open has not gone through yet.
                if sawWriter || identity() != checked { break }
            } else if errno == EAGAIN {
                sawWriter = true
            } else {
                break
            }
            usleep(500)
        }
        var now = stat()
        guard fstat(fd, &now) == 0, FileIdentity(now) != checked else { return nil }
        lseek(fd, 0, SEEK_SET)
        guard
            case .present(let bytes, _) = FileReader.read(
                fd, size: Int(now.st_size), path: "(replaced version)",
                sizeLimit: FileReader.defaultSizeLimit)
        else { return nil }
        return bytes
    }

    private func identity() -> FileIdentity? {
        var s = stat()
        guard fstat(fd, &s) == 0 else { return nil }
        return FileIdentity(s)
    }

    private static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    deinit {
        if state == .guarded { _ = books_release_lease(fd) }
        if fd >= 0 { close(fd) }
    }
}

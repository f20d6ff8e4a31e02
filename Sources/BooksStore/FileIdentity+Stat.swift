import BooksCore
import CLinux
import Glibc

/// Reading a `FileIdentity` from the file system (the value type itself is in BooksCore).
extension FileIdentity {
    init(_ s: stat) {
        self.init(
            device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int(s.st_size), modified: s.st_mtim,
            changed: s.st_ctim, mode: s.st_mode, owner: s.st_uid, group: s.st_gid)
    }

    /// This identity with ``born`` read from the open file `fd` (unchanged where the file system
    /// records no birth time).
    public func withBirthTime(of fd: Int32) -> FileIdentity {
        var seconds: Int64 = 0
        var nanoseconds: UInt32 = 0
        guard books_birth_time(fd, &seconds, &nanoseconds) == 0 else { return self }
        var copy = self
        copy.born = timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
        return copy
    }

    /// This identity marked as put in place by booksd now (see ``placed``).
    public func placedNow() -> FileIdentity {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var copy = self
        copy.placed = now
        return copy
    }

    /// The identity of the file at `path` (following symlinks), or nil when there is none.
    public static func of(path: String) -> FileIdentity? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return FileIdentity(s)
    }
}

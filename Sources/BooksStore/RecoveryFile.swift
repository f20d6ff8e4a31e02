import Glibc

/// A copy of bytes that could not be put where they belong, kept beside the book file so that
/// nothing a user wrote is lost: `books.txt.recovered-<seconds>-<pid>`, mode 0600.
public enum RecoveryFile {
    /// Writes `bytes` to a new recovery file beside `path`; returns its path (nil when even
    /// that failed).
    @discardableResult
    public static func keep(_ bytes: [UInt8], beside path: String) -> String? {
        let target = newPath(beside: path)
        let fd = Interrupted.retry { open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard Interrupted.writeAll(fd, bytes).failure == nil else {
            unlink(target)  // never leave a partial copy that looks like a complete one
            return nil
        }
        guard Interrupted.retry({ fsync(fd) }) == 0 else {
            unlink(target)
            return nil
        }
        AtomicFileWriter.syncDirectory(PathParts(target).directory)
        return target
    }

    /// Moves the file at `source` (a name in the book file's directory) to a new recovery file
    /// name beside `path` without replacing anything there (`link` + `unlink`, so an existing
    /// name is never overwritten); returns the new path, nil when it could not be moved.
    public static func move(_ source: String, beside path: String) -> String? {
        for _ in 0..<5 {
            let target = newPath(beside: path)
            if link(source, target) == 0 {
                unlink(source)
                return target
            }
            if errno != EEXIST { break }
        }
        return nil
    }

    /// `books.txt.recovered-<seconds>-<microseconds>-<pid>` beside `path` (beside a symlink's target).
    static func newPath(beside path: String) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return AtomicFileWriter.resolveSymlink(path) + ".recovered-\(now.tv_sec)-\(now.tv_nsec / 1000)-\(getpid())"
    }
}

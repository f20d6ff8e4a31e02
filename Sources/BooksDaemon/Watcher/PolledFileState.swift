import Glibc

/// The `stat` fields a ``PollingFileWatcher`` compares between polls.
///
/// Any difference means "content may have changed": size, modification time (nanoseconds),
/// status-change time (nanoseconds, catches same-size rewrites within one mtime tick when the
/// filesystem keeps ctime separately), inode and device (a replaced file).
struct PolledFileState: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modificationSeconds: Int
    let modificationNanoseconds: Int
    let changeSeconds: Int
    let changeNanoseconds: Int

    /// Stats `path` (following symlinks); `nil` when there is no file there (or it cannot be
    /// stat'ed, e.g. permission denied, which the watcher reports like an absence).
    static func take(_ path: String) -> PolledFileState? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return PolledFileState(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationSeconds: info.st_mtim.tv_sec, modificationNanoseconds: info.st_mtim.tv_nsec,
            changeSeconds: info.st_ctim.tv_sec, changeNanoseconds: info.st_ctim.tv_nsec)
    }

    /// The event that turns `old` into `new`, or `nil` when nothing changed.
    static func event(from old: PolledFileState?, to new: PolledFileState?) -> FileWatchEvent? {
        switch (old, new) {
        case (nil, nil): nil
        case (nil, .some): .created
        case (.some, nil): .removed
        case let (.some(a), .some(b)): a == b ? nil : .contentMayHaveChanged
        }
    }
}

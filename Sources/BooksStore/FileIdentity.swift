import CLinux
import Glibc

/// What identifies one version of a file on disk: device, inode, size, modification and change
/// times (nanoseconds). Two reads with the same identity saw the same file object in the same state,
/// except for writers that keep size and both times (practically none: ctime always moves).
public struct FileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int
    public var modified: timespec
    public var changed: timespec
    public var mode: mode_t
    public var owner: uid_t
    public var group: gid_t
    /// When the file was created (statx's birth time), where the file system records it and the
    /// reader asked (``withBirthTime(of:)``); nil otherwise. Not part of the identity's equality.
    public var born: timespec?
    /// When booksd itself put this version in place (the realtime clock read just after its
    /// rename or append, so never earlier than the moment the content became visible); nil for a
    /// version someone else made. Not part of the identity's equality.
    public var placed: timespec?
    init(_ s: stat) {
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int(s.st_size)
        modified = s.st_mtim
        changed = s.st_ctim
        mode = s.st_mode
        owner = s.st_uid
        group = s.st_gid
    }

    public static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
        hasher.combine(size)
        hasher.combine(modified.tv_nsec)
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

extension FileIdentity {
    /// `inode 1234, 5678 bytes, mtime 1764500000.123456789`: for debug logs.
    public var traceDescription: String {
        "inode \(inode), \(size) bytes, mtime \(modified.tv_sec).\(modified.tv_nsec)"
    }
}

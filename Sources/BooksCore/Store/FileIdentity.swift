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
    /// reader asked (BooksStore's `withBirthTime(of:)`); nil otherwise. Not part of the identity's equality.
    public var born: timespec?
    /// When booksd itself put this version in place (the realtime clock read just after its
    /// rename or append, so never earlier than the moment the content became visible); nil for a
    /// version someone else made. Not part of the identity's equality.
    public var placed: timespec?

    /// An identity of these fields (BooksStore makes them from `stat`).
    public init(
        device: UInt64, inode: UInt64, size: Int, modified: timespec, changed: timespec, mode: mode_t,
        owner: uid_t, group: gid_t, born: timespec? = nil, placed: timespec? = nil
    ) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
        self.mode = mode
        self.owner = owner
        self.group = group
        self.born = born
        self.placed = placed
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
}

extension FileIdentity {
    /// `inode 1234, 5678 bytes, mtime 1764500000.123456789`: for debug logs.
    public var traceDescription: String {
        "inode \(inode), \(size) bytes, mtime \(modified.tv_sec).\(modified.tv_nsec)"
    }
}

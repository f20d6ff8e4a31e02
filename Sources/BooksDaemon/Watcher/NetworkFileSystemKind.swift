import CLinux
import Glibc

/// A filesystem on which inotify misses changes made elsewhere (other hosts, a FUSE daemon),
/// identified by the `statfs` `f_type` magic number.
public enum NetworkFileSystemKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// NFS (`NFS_SUPER_MAGIC` 0x6969).
    case nfs
    /// Legacy SMB (`SMB_SUPER_MAGIC` 0x517B).
    case smb
    /// SMB2/3 via the `smb3` driver (`SMB2_SUPER_MAGIC` 0xFE534D42).
    case smb2
    /// CIFS (`CIFS_SUPER_MAGIC` 0xFF534D42).
    case cifs
    /// Any FUSE filesystem (`FUSE_SUPER_MAGIC` 0x65735546): sshfs, rclone, s3fs, …
    case fuse
    /// CephFS (`CEPH_SUPER_MAGIC` 0x00C36400).
    case ceph
    /// 9P / virtfs (`V9FS_MAGIC` 0x01021997), e.g. WSL and VM shared folders.
    case ninePee = "9p"
    /// OpenAFS (`AFS_SUPER_MAGIC` 0x5346414F).
    case afs
    /// The in-kernel AFS client (`AFS_FS_MAGIC` 0x6B414653).
    case kafs
    /// Coda (`CODA_SUPER_MAGIC` 0x73757245).
    case coda
    /// NetWare NCP (`NCP_SUPER_MAGIC` 0x564C).
    case ncp
    /// GFS2 cluster filesystem (0x01161970).
    case gfs2
    /// OCFS2 cluster filesystem (0x7461636F).
    case ocfs2
    /// Lustre (0x0BD00BD0).
    case lustre
    /// IBM Spectrum Scale / GPFS (0x47504653).
    case gpfs
    /// OrangeFS / PVFS2 (0x19830326).
    case orangefs

    /// The Linux superblock magic (`statfs.f_type`, low 32 bits) for this kind.
    public var magic: UInt32 {
        switch self {
        case .nfs: 0x6969
        case .smb: 0x517B
        case .smb2: 0xFE53_4D42
        case .cifs: 0xFF53_4D42
        case .fuse: 0x6573_5546
        case .ceph: 0x00C3_6400
        case .ninePee: 0x0102_1997
        case .afs: 0x5346_414F
        case .kafs: 0x6B41_4653
        case .coda: 0x7375_7245
        case .ncp: 0x564C
        case .gfs2: 0x0116_1970
        case .ocfs2: 0x7461_636F
        case .lustre: 0x0BD0_0BD0
        case .gpfs: 0x4750_4653
        case .orangefs: 0x1983_0326
        }
    }

    /// The kind for a `statfs` `f_type` value, or `nil` for local (or unknown) filesystems.
    /// Only the low 32 bits are compared (some ABIs sign-extend the magic).
    public init?(filesystemType: Int) {
        let low = UInt32(truncatingIfNeeded: filesystemType)
        guard let kind = Self.allCases.first(where: { $0.magic == low }) else { return nil }
        self = kind
    }

    /// The raw name, e.g. `nfs`, `cifs`, `9p`.
    public var description: String { rawValue }
}

/// The network (or FUSE) filesystem holding `path`, or `nil` when it is local.
///
/// Uses `statfs(2)` on `path`, or on its directory when `path` itself does not exist; returns
/// `nil` when neither can be examined. FUSE counts as network: a FUSE daemon (sshfs, rclone…)
/// changes files without inotify events, so polling is the safe choice there.
public func detectNetworkFileSystem(path: String) -> NetworkFileSystemKind? {
    var type = books_filesystem_type(path)
    if type == -1, let watched = try? WatchedPath(path) {
        type = books_filesystem_type(watched.directory)
    }
    guard type != -1 else { return nil }
    return NetworkFileSystemKind(filesystemType: type)
}

/// Picks the watcher for `path`: ``PollingFileWatcher`` on network filesystems (with a warning
/// to log), a watcher on `hub` otherwise.
public func makeFileWatcher(
    path: String, hub: InotifyHub, pollingIntervalSeconds: Double = 2
)
    throws(FileWatcherError) -> (watcher: any FileWatcher, warning: String?)
{
    if let kind = detectNetworkFileSystem(path: path) {
        let watcher = try PollingFileWatcher(path: path, intervalSeconds: pollingIntervalSeconds)
        return (
            watcher,
            "'\(path)' is on a \(kind) filesystem where inotify misses remote changes; "
                + "polling every \(watcher.intervalSeconds) s instead"
        )
    }
    return (try hub.fileWatcher(path: path), nil)
}

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
    /// A hash of the content read with this identity (set by `FileReader`; nil from a bare `stat`).
    /// Stable within one process only. Lets a writer prove the file it replaces is the one it read.
    public var contentHash: Int?

    init(_ s: stat, contentHash: Int? = nil) {
        self.contentHash = contentHash
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

    /// The content hash used by `contentHash`: four independent multiply–xor lanes over 8-byte
    /// words (memory speed, several GB/s — a 60 MB file costs milliseconds, not the ~50 ms of
    /// SipHash), folded with the length. Not cryptographic: it tells versions of one file apart.
    public static func hash(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw -> Int in
            let n = raw.count
            var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F,
                                                          0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63)
            let m: UInt64 = 0xFF51_AFD7_ED55_8CCD
            var i = 0
            if let base = raw.baseAddress {
                while i + 32 <= n {
                    lanes.0 = (lanes.0 ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m
                    lanes.1 = (lanes.1 ^ base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* m
                    lanes.2 = (lanes.2 ^ base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* m
                    lanes.3 = (lanes.3 ^ base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* m
                    lanes.0 ^= lanes.0 >> 29; lanes.1 ^= lanes.1 >> 29; lanes.2 ^= lanes.2 >> 29; lanes.3 ^= lanes.3 >> 29
                    i += 32
                }
                while i < n {
                    lanes.0 = (lanes.0 ^ UInt64(base.load(fromByteOffset: i, as: UInt8.self))) &* m
                    i += 1
                }
            }
            var h = UInt64(n) ^ lanes.0
            h = (h ^ (lanes.1 &* 0x2127_599B_F432_5C37)) &* m
            h = (h ^ (lanes.2 &* 0x9FB2_1C65_1E98_DF25)) &* m
            h = (h ^ (lanes.3 &* 0xC4CE_B9FE_1A85_EC53)) &* m
            h ^= h >> 32
            return Int(truncatingIfNeeded: h)
        }
    }

    /// The identity of the file at `path` (following symlinks), or nil when there is none.
    public static func of(path: String) -> FileIdentity? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return FileIdentity(s)
    }
}

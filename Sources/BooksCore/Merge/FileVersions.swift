/// What identified one version of the book file on disk: enough to tell which version an
/// editor's lock names, without a copy of its content (the content of any recent version is the
/// current one with the change sets since undone).
public struct FileVersion: Sendable, Hashable, Codable {
    /// The seq the context had with this content.
    public var seq: UInt64
    /// The file's inode, size and modification time (seconds and nanoseconds).
    public var inode: UInt64
    public var size: Int
    public var mtimeSeconds: Int64
    public var mtimeNanoseconds: Int64
    /// The CRC-32C of the content, when it was computed (0 otherwise).
    public var contentHash: UInt32
    /// When this version came in place, as far as booksd knows: the moment it finished its own
    /// write of it, else the file's modification time (a tool's rename lands after its last write).
    public var placedSeconds: Int64
    public var placedNanoseconds: Int64
    /// For a version that was never the content held — a stale save the daemon rebased and
    /// rewrote — the net change from this version's books to those at `seq` (nil otherwise).
    public var overlay: NetChanges?

    /// Creates a version record.
    public init(
        seq: UInt64, inode: UInt64, size: Int, mtimeSeconds: Int64, mtimeNanoseconds: Int64,
        contentHash: UInt32 = 0, overlay: NetChanges? = nil, placedSeconds: Int64? = nil,
        placedNanoseconds: Int64? = nil
    ) {
        self.overlay = overlay
        self.placedSeconds = placedSeconds ?? mtimeSeconds
        self.placedNanoseconds = placedSeconds == nil ? mtimeNanoseconds : placedNanoseconds ?? 0
        self.seq = seq
        self.inode = inode
        self.size = size
        self.mtimeSeconds = mtimeSeconds
        self.mtimeNanoseconds = mtimeNanoseconds
        self.contentHash = contentHash
    }

    private enum CodingKeys: String, CodingKey {
        case seq, inode, size, mtimeSeconds, mtimeNanoseconds, contentHash, overlay, placedSeconds, placedNanoseconds
    }

    /// Decodes a version record; one written before the placement time was kept takes its
    /// modification time, as ``init(seq:inode:size:mtimeSeconds:mtimeNanoseconds:contentHash:overlay:placedSeconds:placedNanoseconds:)`` does.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            seq: c.decode(UInt64.self, forKey: .seq), inode: c.decode(UInt64.self, forKey: .inode),
            size: c.decode(Int.self, forKey: .size), mtimeSeconds: c.decode(Int64.self, forKey: .mtimeSeconds),
            mtimeNanoseconds: c.decode(Int64.self, forKey: .mtimeNanoseconds),
            contentHash: c.decodeIfPresent(UInt32.self, forKey: .contentHash) ?? 0,
            overlay: c.decodeIfPresent(NetChanges.self, forKey: .overlay),
            placedSeconds: c.decodeIfPresent(Int64.self, forKey: .placedSeconds),
            placedNanoseconds: c.decodeIfPresent(Int64.self, forKey: .placedNanoseconds))
    }

    /// True when a vim swap file's block 0 names this version (mtime seconds and the inode's low
    /// 32 bits, as vim stores them).
    public func matches(_ header: SwapFileHeader) -> Bool {
        UInt32(truncatingIfNeeded: inode) == header.inode
            && UInt32(truncatingIfNeeded: mtimeSeconds) == header.mtimeSeconds
    }
}

/// The recent versions of the book file, newest last, bounded.
///
/// Guarantee: holds at most `capacity` versions (the oldest go first); recording a version
/// again adds nothing. Several versions may share a seq (a comment edited: no book changed).
public struct FileVersions: Sendable, Hashable, Codable {
    /// How many versions are kept.
    public let capacity: Int
    /// The versions, oldest first.
    public private(set) var versions: [FileVersion] = []
    /// How many versions were ever added (a version dropped for the capacity still counts): the
    /// newest `recorded - n` of `versions` are the ones added since the count was `n`.
    public private(set) var recorded: UInt64 = 0

    /// An empty record keeping at most `capacity` versions.
    public init(capacity: Int = 256) { self.capacity = max(1, capacity) }

    /// Records a version of the file; one already recorded (the same inode, size and mtime) is
    /// kept as it was.
    public mutating func record(_ version: FileVersion) {
        if versions.reversed().contains(where: {
            $0.inode == version.inode && $0.size == version.size && $0.mtimeSeconds == version.mtimeSeconds
                && $0.mtimeNanoseconds == version.mtimeNanoseconds
        }) {
            return
        }
        versions.append(version)
        recorded += 1
        if versions.count > capacity { versions.removeFirst(versions.count - capacity) }
    }

    /// The versions added since `recorded` was `count`, oldest first (all of them when more were
    /// added than are kept).
    public func added(since count: UInt64) -> ArraySlice<FileVersion> {
        let new = recorded > count ? recorded - count : 0
        return versions.suffix(Int(min(new, UInt64(versions.count))))
    }

    /// The newest version a swap file names, if it is still recorded.
    public func version(namedBy header: SwapFileHeader) -> FileVersion? { candidates(namedBy: header).first }

    /// Every recorded version a swap file may name, newest first: several when the file changed
    /// within one second without a new inode (an append), which vim's block 0 cannot tell apart.
    public func candidates(namedBy header: SwapFileHeader) -> [FileVersion] {
        guard header.namesVersion else { return [] }
        return versions.reversed().filter { $0.matches(header) }
    }

    /// Every recorded version that may have been the one in place when a program made a file at
    /// `seconds`/`nanoseconds` (its birth time) that it later renamed over the book file, newest
    /// first: the last one placed at or before that moment less `slack` nanoseconds (the program
    /// may have opened the book file just before making its own), and every one after it (all
    /// of them when none was placed that early).
    public func candidates(bornAt seconds: Int64, nanoseconds: Int64, slack: Int64) -> [FileVersion] {
        let total = seconds * 1_000_000_000 + nanoseconds - slack
        let moment = (total.quotientAndRemainder(dividingBy: 1_000_000_000))
        let instant =
            moment.remainder < 0 ? (moment.quotient - 1, moment.remainder + 1_000_000_000) : moment
        // None placed that early: the file was made before every version recorded (booksd had
        // just started, or the file just been written), so any of them may be its base.
        let first = versions.lastIndex(where: { ($0.placedSeconds, $0.placedNanoseconds) <= instant }) ?? 0
        return Array(versions[first...].reversed())
    }

    /// The newest version whose file was in place at `seconds` (a lock's creation time): the last
    /// one modified at or before it.
    public func version(inPlaceAt seconds: Int64, nanoseconds: Int64) -> FileVersion? {
        versions.last { ($0.mtimeSeconds, $0.mtimeNanoseconds) <= (seconds, nanoseconds) }
    }
}

/// What `CrashStateEnumerator` needs to know about each operation of a recording, computed once
/// by replaying it completely (no crash).
struct OperationFacts: Sendable {
    /// `metadataBefore[i]`: metadata operations among the first `i` (0…count).
    var metadataBefore: [Int]
    /// `journalFloor[k]`: metadata operations a sync among the first `k` operations made durable.
    var journalFloor: [Int]
    /// Indices of each inode's writes, in order.
    var writesByInode: [Int: [Int]]
    /// Whether the operation at an index is a write that grew its file.
    var grows: [Bool]
    /// Indices of each inode's syncs.
    var syncsByInode: [Int: [Int]]
    /// Renames that replaced an existing file, by source inode: (operation index, metadata ordinal).
    var replacingRenames: [Int: [(Int, Int)]]

    init(initial: DirectoryImage, operations: [FileOperation]) {
        var live = initial
        metadataBefore = [0]
        journalFloor = [0]
        writesByInode = [:]
        grows = []
        syncsByInode = [:]
        replacingRenames = [:]
        var metadata = 0
        var floor = 0
        // Inodes with journaled changes not yet committed, as fsync and fdatasync see them, and
        // with writes not yet synced (whose size update is journaled at write-back, rule 5).
        var fsyncDirty: Set<Int> = []
        var datasyncDirty: Set<Int> = []
        var unsyncedWrites: Set<Int> = []
        var unsyncedGrowth: Set<Int> = []
        for (i, operation) in operations.enumerated() {
            var grew = false
            switch operation {
            case .create(_, let inode, _):
                fsyncDirty.insert(inode)
                datasyncDirty.insert(inode)
            case .truncate(let inode, _):
                fsyncDirty.insert(inode)
                datasyncDirty.insert(inode)
            case .setAttributes(let inode, _), .link(_, let inode):
                fsyncDirty.insert(inode)
            case .rename(let from, let to):
                if let source = live.names[from] {
                    fsyncDirty.insert(source)
                    if live.names[to] != nil, live.names[to] != source {
                        replacingRenames[source, default: []].append((i, metadata))
                    }
                }
            case .exchange(let a, let b):
                for name in [a, b] { if let inode = live.names[name] { fsyncDirty.insert(inode) } }
            case .write(let inode, let offset, let bytes):
                writesByInode[inode, default: []].append(i)
                grew = offset + bytes.count > (live.files[inode]?.bytes.count ?? 0)
                unsyncedWrites.insert(inode)
                if grew { unsyncedGrowth.insert(inode) }
                live.applyWrite(inode: inode, offset: offset, bytes: bytes)
            case .sync(let inode, let dataOnly):
                syncsByInode[inode, default: []].append(i)
                let commits =
                    dataOnly
                    ? datasyncDirty.contains(inode) || unsyncedGrowth.contains(inode)
                    : fsyncDirty.contains(inode) || unsyncedWrites.contains(inode)
                if commits {
                    // The running transaction holds every earlier metadata operation.
                    floor = max(floor, metadata)
                    fsyncDirty.removeAll()
                    datasyncDirty.removeAll()
                }
                unsyncedWrites.remove(inode)
                unsyncedGrowth.remove(inode)
            case .syncDirectory:
                floor = max(floor, metadata)
                fsyncDirty.removeAll()
                datasyncDirty.removeAll()
            case .makeDirectory, .unlink, .output:
                break
            }
            if operation.isMetadata {
                live.applyMetadata(operation)
                metadata += 1
            }
            grows.append(grew)
            metadataBefore.append(metadata)
            journalFloor.append(floor)
        }
    }

    /// The index of the last sync of `inode` among the first `k` operations, 0 when none (every
    /// write of the inode before it is durable).
    func lastSync(of inode: Int, before k: Int) -> Int {
        syncsByInode[inode]?.last { $0 < k } ?? 0
    }
}

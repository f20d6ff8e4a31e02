/// Enumerates the states ext4 (`data=ordered`, delayed allocation, `auto_da_alloc`) may leave a
/// directory in when the power fails at any point of a recorded operation list, in the manner
/// of ALICE (Pillai et al., OSDI 2014). Pure: no I/O.
///
/// Rules (docs/RELIABILITY.md, "Power cuts"):
/// 1. A crash point `k` cuts the list after `k` operations; nothing after it happened.
/// 2. Metadata operations (create, mkdir, link, rename, exchange, unlink, truncate, attribute
///    changes) go through one journal and persist in issue order: a prefix of length `m`.
/// 3. `fsync`/`fdatasync` of a file makes every earlier write to it durable; when the file has a
///    journaled change not yet committed (`fsync`: any metadata of it or a write; `fdatasync`:
///    its creation, a truncate or a write that grew it) it commits the running transaction, so
///    `m` is at least the number of metadata operations before it. `fsync` of a directory
///    always does.
/// 4. Unsynced writes of a file persist as a prefix of the file's write stream, cut at a write's
///    end or at a `blockSize` boundary (a page is written whole or not at all).
/// 5. Ordered mode with delayed allocation: a write that grows the file becomes visible only with
///    its size update, journaled at write-back — after every metadata operation issued before
///    the write. So persisting (part of) such a write needs `m` ≥ the metadata operations
///    before it. Writes within the old size have no such constraint.
/// 6. `auto_da_alloc`: a `rename` that replaces an existing file flushes the source's data
///    before the rename commits, so when that rename is in the prefix, every earlier write to
///    the source is persisted. (`RENAME_EXCHANGE` does not do this.)
/// Limits: writes that overwrite within the file are treated as the same ordered stream (ext4
/// may persist them out of order); per-sector tearing inside a block, reordering by the device
/// (a disk that lies about flushes) and other file systems are not modelled.
public struct CrashStateEnumerator: Sendable {
    /// The directory before the first operation (all of it durable).
    public var initial: DirectoryImage
    /// The recorded operations.
    public var operations: [FileOperation]
    /// The page/block size of rule 4.
    public var blockSize: Int
    /// The most cut points used per file and state (rule 4 on large appends).
    public var maximumCuts: Int

    /// A model of `operations` run on `initial`.
    public init(
        initial: DirectoryImage, operations: [FileOperation], blockSize: Int = 4096,
        maximumCuts: Int = 64
    ) {
        self.initial = initial
        self.operations = operations
        self.blockSize = blockSize
        self.maximumCuts = maximumCuts
    }

    /// Every distinct crash state.
    public func states() -> CrashStates {
        let facts = OperationFacts(initial: initial, operations: operations)
        var result = CrashStates(states: [], crashPoints: operations.count + 1, generated: 0, bounded: false)
        var index: [VisibleDirectory: Int] = [:]
        var acknowledged: [String] = []
        for k in 0...operations.count {
            if k > 0, case .output(let label?) = operations[k - 1] { acknowledged.append(label) }
            for m in facts.journalFloor[k]...facts.metadataBefore[k] {
                let choices = cutChoices(crashPoint: k, journalPrefix: m, facts: facts, bounded: &result.bounded)
                for combination in Self.combinations(choices) {
                    result.generated += 1
                    let image = replay(crashPoint: k, journalPrefix: m, cuts: combination, facts: facts)
                    let state = CrashState(image: image, acknowledged: acknowledged, crashPoint: k, journalPrefix: m)
                    let key = image.visible
                    if let existing = index[key] {
                        result.states[existing] = state  // the latest crash point: the most acknowledged
                    } else {
                        index[key] = result.states.count
                        result.states.append(state)
                    }
                }
            }
        }
        return result
    }

    /// How much of an inode's write stream persists: `fullWrites` whole writes, then `partBytes`
    /// bytes of the next one.
    struct Cut: Hashable {
        var inode: Int
        var fullWrites: Int
        var partBytes: Int
    }

    /// The allowed cuts of every inode with writes before `k` (rules 3–6).
    func cutChoices(crashPoint k: Int, journalPrefix m: Int, facts: OperationFacts, bounded: inout Bool) -> [[Cut]] {
        var result: [[Cut]] = []
        for (inode, writes) in facts.writesByInode.sorted(by: { $0.key < $1.key }) {
            let issued = writes.filter { $0 < k }
            if issued.isEmpty { continue }
            var durable = issued.filter { $0 < facts.lastSync(of: inode, before: k) }.count
            for (renameIndex, ordinal) in facts.replacingRenames[inode] ?? [] where ordinal < m && renameIndex < k {
                durable = max(durable, issued.filter { $0 < renameIndex }.count)
            }
            var cuts = [Cut(inode: inode, fullWrites: durable, partBytes: 0)]
            for w in durable..<issued.count {
                let op = issued[w]
                if facts.grows[op], m < facts.metadataBefore[op] { break }  // rule 5
                guard case .write(_, let offset, let bytes) = operations[op] else { continue }
                var boundary = (offset / blockSize + 1) * blockSize
                while boundary < offset + bytes.count {
                    cuts.append(Cut(inode: inode, fullWrites: w, partBytes: boundary - offset))
                    boundary += blockSize
                }
                cuts.append(Cut(inode: inode, fullWrites: w + 1, partBytes: 0))
            }
            if cuts.count > maximumCuts {
                bounded = true
                cuts = Array(cuts.prefix(maximumCuts / 2)) + Array(cuts.suffix(maximumCuts / 2))
            }
            result.append(cuts)
        }
        return result
    }

    /// The image after the first `k` operations with only `m` metadata operations and the given
    /// cuts of each inode's writes persisted.
    func replay(crashPoint k: Int, journalPrefix m: Int, cuts: [Cut], facts: OperationFacts) -> DirectoryImage {
        var image = initial
        var cutByInode: [Int: Cut] = [:]
        for cut in cuts { cutByInode[cut.inode] = cut }
        var writeNumber: [Int: Int] = [:]
        var ordinal = 0
        for i in 0..<k {
            let operation = operations[i]
            if operation.isMetadata {
                if ordinal < m { image.applyMetadata(operation) }
                ordinal += 1
            } else if case .write(let inode, let offset, let bytes) = operation {
                let number = writeNumber[inode, default: 0]
                writeNumber[inode] = number + 1
                guard let cut = cutByInode[inode] else { continue }
                if number < cut.fullWrites {
                    image.applyWrite(inode: inode, offset: offset, bytes: bytes)
                } else if number == cut.fullWrites, cut.partBytes > 0 {
                    image.applyWrite(inode: inode, offset: offset, bytes: Array(bytes[..<cut.partBytes]))
                }
            }
        }
        return image
    }

    /// Every way to pick one element of each list.
    static func combinations(_ lists: [[Cut]]) -> [[Cut]] {
        var result: [[Cut]] = [[]]
        for list in lists {
            result = result.flatMap { prefix in list.map { prefix + [$0] } }
        }
        return result
    }
}

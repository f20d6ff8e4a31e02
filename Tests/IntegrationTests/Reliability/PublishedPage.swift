// The history's files in a crash state that the trace cannot show as written: the `published`
// page (stores into a shared mapping) and the journal header's boot id (a reboot).
import BooksCore
import BooksTestSupport

/// Models what the memory-mapped `published` page may hold on disk at a crash point. Its stores
/// are invisible to strace; the kernel writes the dirty page back at any time, so after a power
/// cut the disk holds the value as the traced calls left it (zeros from its creation, or an
/// earlier run's page) or a later value, up to the newest one; after an `msync` (a recorded
/// `sync` of it) at least the value of then. Pure.
enum PublishedPage {
    static let directory = ".books.txt.history"
    static let name = directory + "/published"
    static let magic: [UInt8] = Array("BKPUBL".utf8) + [0, 1]

    /// The page holding `seq` (magic stamped).
    static func page(seq: UInt64) -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: seq.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes + [UInt8](repeating: 0, count: 4096 - bytes.count)
    }

    /// The seq a page holds, nil when it is not stamped.
    static func seq(of bytes: [UInt8]) -> UInt64? {
        guard bytes.count >= 16, Array(bytes[0..<8]) == magic else { return nil }
        return bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The newest value at crash point `k`: stamped once the initial page was, or once a snapshot's
    /// journal was renamed into place; its seq is the highest change set sent (`c<seq>` markers).
    /// Nil when the page is not stamped yet (then the traced content is all there is).
    static func newest(at k: Int, operations: [FileOperation], initial: DirectoryImage) -> [UInt8]? {
        var last = initial[name].flatMap { Self.seq(of: $0.bytes) }
        var stamped = last != nil
        for operation in operations.prefix(k) {
            switch operation {
            case .rename(let from, let to) where from == directory + "/journal.new" && to == directory + "/journal":
                stamped = true
            case .output(let label?) where label.hasPrefix("c"):
                last = max(last ?? 0, UInt64(label.dropFirst()) ?? 0)
            default:
                continue
            }
        }
        return stamped ? page(seq: last ?? 0) : nil
    }

    /// Whether the page was synced (`msync`) before crash point `k`.
    static func synced(before k: Int, operations: [FileOperation], initial: DirectoryImage) -> Bool {
        var inode = initial.names[name]
        for operation in operations.prefix(k) {
            if case .create(let created, let number, _) = operation, created == name { inode = number }
            if case .sync(let synced, _) = operation, synced == inode { return true }
        }
        return false
    }

    /// The page contents to try for a state (nil: the content as traced). A process crash keeps
    /// the page cache, so the newest value; a power cut may also leave the traced content, unless
    /// the page was synced.
    static func candidates(
        at k: Int, operations: [FileOperation], initial: DirectoryImage, reboot: Bool
    ) -> [[UInt8]?] {
        let latest = newest(at: k, operations: operations, initial: initial)
        guard reboot, !synced(before: k, operations: operations, initial: initial) else { return [latest] }
        return latest == nil ? [nil] : [nil, latest]
    }
}

/// Simulates a reboot for a materialised state: the journal's header gets another boot id (its
/// own encoding, checksum included), as if the journal had been written during an earlier boot.
/// A header that does not pass its checksum is left alone.
enum JournalBootRewriter {
    static let otherBoot = [UInt8](repeating: 0xEE, count: 16)

    static func header(_ bytes: [UInt8]) -> HistoryJournalFormat.Header? {
        guard bytes.count >= HistoryJournalFormat.headerSize else { return nil }
        // Decoding the header alone: a journal of just its header is a valid journal.
        guard case .some((let header, _)) = try? HistoryJournalFormat.decode(Array(bytes.prefix(64))) else {
            return nil
        }
        return header
    }

    static func rewrite(_ bytes: [UInt8]) -> [UInt8]? {
        guard var header = header(bytes) else { return nil }
        header.bootID = otherBoot
        return HistoryJournalFormat.encode(header) + bytes.dropFirst(HistoryJournalFormat.headerSize)
    }
}

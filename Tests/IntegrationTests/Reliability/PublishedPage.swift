// The history's files in a crash state: the `published` page, and the journal header's boot id,
// which the trace cannot show (a reboot).
import BooksCore
import BooksTestSupport

/// The `published` page of a traced state. booksd writes it with `pwrite` (never through a
/// shared mapping, which a file shortened by someone else turns into SIGBUS), so its writes are in
/// the trace: after a power cut the page is as the crash-state model leaves it; after a process
/// crash the page cache holds every write up to the crash point (`newest`). Pure.
enum PublishedPage {
    static let directory = ".books.txt.history"
    static let name = directory + "/published"
    static let magic: [UInt8] = Array("BKPUBL".utf8) + [0, 1]

    /// The page with every traced write up to crash point `k` applied (nil while it does not exist).
    static func newest(at k: Int, operations: [FileOperation], initial: DirectoryImage) -> [UInt8]? {
        var image = initial
        for operation in operations.prefix(k) {
            if operation.isMetadata { image.applyMetadata(operation) }
            if case .write(let inode, let offset, let bytes) = operation {
                image.applyWrite(inode: inode, offset: offset, bytes: bytes)
            }
        }
        return image[name]?.bytes
    }

    /// The seq a page holds, nil when it is not stamped.
    static func seq(of bytes: [UInt8]) -> UInt64? {
        guard bytes.count >= 16, Array(bytes[0..<8]) == magic else { return nil }
        return bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
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

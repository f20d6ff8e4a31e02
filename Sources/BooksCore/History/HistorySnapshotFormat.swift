/// The snapshot file of the daemon's saved history: one whole `SavedLedger`, the book file it
/// belongs to and a random id that ties the journal written after it to it.
///
/// Layout (little-endian): magic `BKSNAP\0\1`, format version, payload CRC-32C, payload length,
/// header CRC-32C; then the payload: file key, snapshot id, epoch, seq, last change, line limit,
/// the document's bytes, slip ids, held books, versions, change log. Any change to any byte is
/// caught by a checksum; nothing is believed before both checksums matched.
public enum HistorySnapshotFormat {
    static let magic: [UInt8] = Array("BKSNAP".utf8) + [0, 1]
    static let version: UInt32 = 1
    static let headerSize = 28

    /// A snapshot, decoded.
    public struct Contents: Sendable {
        /// The book file it belongs to (see `HistoryExpectation.fileKey`).
        public var fileKey: String
        /// Its random id (the journal names it).
        public var snapshotID: UInt64
        /// The context.
        public var context: SavedLedger
    }

    /// The snapshot's bytes as chunks to write in order; the document's bytes are one chunk,
    /// shared with `context` (not copied).
    public static func encode(_ context: SavedLedger, fileKey: String, snapshotID: UInt64) -> [[UInt8]] {
        var head = HistoryByteWriter(capacity: 256)
        head.string(fileKey)
        head.u64(snapshotID)
        head.string(context.epoch)
        head.u64(context.seq)
        if let last = context.lastChange {
            head.u8(1)
            head.time(last)
        } else {
            head.u8(0)
        }
        head.u64(UInt64(context.lineLimit))
        head.u64(UInt64(context.bytes.count))
        var tail = HistoryByteWriter()
        tail.u64(UInt64(context.slipIDs.count))
        for id in context.slipIDs { tail.data(id) }
        tail.books(context.held)
        tail.u64(UInt64(context.versions.count))
        for (id, version) in context.versions.sorted(by: { $0.key < $1.key }) {
            tail.string(id)
            tail.u64(version)
        }
        tail.u64(UInt64(context.log.count))
        for change in context.log { tail.changeSet(change) }
        let chunks = [head.bytes, context.bytes, tail.bytes]
        var crc: UInt32 = 0
        for chunk in chunks { crc = CRC32C.checksum(chunk, continuing: crc) }
        var header = HistoryByteWriter(capacity: headerSize)
        for byte in magic { header.u8(byte) }
        header.u32(version)
        header.u32(crc)
        header.u64(UInt64(chunks.reduce(0) { $0 + $1.count }))
        header.u32(CRC32C.checksum(header.bytes))
        return [header.bytes] + chunks
    }

    /// Decodes a whole snapshot file.
    public static func decode(_ bytes: [UInt8]) throws(HistoryFormatError) -> Contents {
        let what = "snapshot"
        guard bytes.count >= headerSize else { throw .truncated(what: what, at: bytes.count) }
        guard Array(bytes[0..<8]) == magic else { throw .badMagic(what: what) }
        var header = HistoryByteReader(bytes, range: 8..<headerSize, what: what)
        let version = try header.u32()
        let crc = try header.u32()
        let length = try header.u64()
        let headerCRC = try header.u32()
        guard CRC32C.checksum(bytes[0..<(headerSize - 4)]) == headerCRC else {
            throw .checksumMismatch(what: what, at: 0)
        }
        guard version == Self.version else { throw .unsupportedVersion(what: what, version: version) }
        guard length == UInt64(bytes.count - headerSize) else {
            throw .truncated(what: what, at: min(bytes.count, headerSize + Int(clamping: length)))
        }
        let checked = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        guard checked == crc else { throw .checksumMismatch(what: what, at: headerSize) }
        var reader = HistoryByteReader(bytes, range: headerSize..<bytes.count, what: what)
        let fileKey = try reader.string()
        let snapshotID = try reader.u64()
        let epoch = try reader.string()
        let seq = try reader.u64()
        let hasLast = try reader.u8()
        guard hasLast <= 1 else { throw reader.invalid() }
        let lastChange = hasLast == 1 ? try reader.time() : nil
        let lineLimit = try reader.u64()
        guard lineLimit > 0, lineLimit <= UInt64(Int.max) else { throw reader.invalid() }
        let document = try reader.data()
        var slips: [[UInt8]] = []
        for _ in 0..<(try reader.count(minimumSize: 8)) { slips.append(try reader.data()) }
        let held = try reader.books()
        var versions: [String: UInt64] = [:]
        let versionCount = try reader.count(minimumSize: 16)
        versions.reserveCapacity(versionCount)
        for _ in 0..<versionCount {
            let id = try reader.string()
            versions[id] = try reader.u64()
        }
        var log: [SequencedChangeSet] = []
        for _ in 0..<(try reader.count(minimumSize: 64)) { log.append(try reader.changeSet()) }
        guard reader.isAtEnd else { throw reader.invalid() }
        let context = SavedLedger(
            epoch: epoch, seq: seq, lastChange: lastChange, bytes: document, lineLimit: Int(lineLimit),
            slipIDs: slips, held: held, versions: versions, log: log)
        return Contents(fileKey: fileKey, snapshotID: snapshotID, context: context)
    }
}

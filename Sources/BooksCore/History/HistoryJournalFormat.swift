/// The journal file of the daemon's saved history: the transitions applied after a snapshot.
///
/// Layout (little-endian): a 64-byte header — magic `BKJRNL\0\1`, format version, flags (bit 0:
/// closed cleanly), the snapshot id and seq it continues, the boot id of the run that writes it,
/// header CRC-32C — then records, each `length, CRC-32C, payload`. A record cut short (a torn
/// write) or changed (a flipped bit) fails its length or checksum: the journal is then rejected,
/// never read past.
public enum HistoryJournalFormat {
    static let magic: [UInt8] = Array("BKJRNL".utf8) + [0, 1]
    static let version: UInt32 = 1
    /// The size of the header (rewritten in place when a run begins or ends).
    public static let headerSize = 64
    static let recordHeaderSize = 8

    /// The journal's header.
    public struct Header: Sendable, Hashable {
        /// Whether the daemon stopped cleanly after writing everything (nothing can be missing).
        public var closedCleanly: Bool
        /// The snapshot this journal continues.
        public var snapshotID: UInt64
        /// The seq of that snapshot.
        public var baseSeq: UInt64
        /// The boot id (16 bytes) of the machine run that writes the journal.
        public var bootID: [UInt8]

        /// Creates a header.
        public init(closedCleanly: Bool, snapshotID: UInt64, baseSeq: UInt64, bootID: [UInt8]) {
            self.closedCleanly = closedCleanly
            self.snapshotID = snapshotID
            self.baseSeq = baseSeq
            self.bootID = bootID
        }
    }

    /// Encodes a header (exactly `headerSize` bytes).
    public static func encode(_ header: Header) -> [UInt8] {
        var writer = HistoryByteWriter(capacity: headerSize)
        for byte in magic { writer.u8(byte) }
        writer.u32(version)
        writer.u32(header.closedCleanly ? 1 : 0)
        writer.u64(header.snapshotID)
        writer.u64(header.baseSeq)
        let boot = Array(header.bootID.prefix(16)) + [UInt8](repeating: 0, count: max(0, 16 - header.bootID.count))
        for byte in boot { writer.u8(byte) }
        for _ in 0..<12 { writer.u8(0) }
        writer.u32(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Encodes one transition as a framed record.
    public static func encode(_ transition: LedgerTransition) -> [UInt8] {
        var payload = HistoryByteWriter(capacity: transition.splice.replacement.count + 64)
        payload.u64(UInt64(transition.splice.range.lowerBound))
        payload.u64(UInt64(transition.splice.range.upperBound))
        payload.data(transition.splice.replacement)
        if let applied = transition.applied {
            payload.u8(1)
            payload.changeSet(applied)
        } else {
            payload.u8(0)
        }
        var record = HistoryByteWriter(capacity: payload.bytes.count + recordHeaderSize)
        record.u32(UInt32(payload.bytes.count))
        record.u32(CRC32C.checksum(payload.bytes))
        var bytes = record.bytes
        bytes.append(contentsOf: payload.bytes)
        return bytes
    }

    /// Decodes a whole journal file: its header and every record, in order.
    public static func decode(_ bytes: [UInt8]) throws(HistoryFormatError) -> (Header, [LedgerTransition]) {
        let what = "journal"
        guard bytes.count >= headerSize else { throw .truncated(what: what, at: bytes.count) }
        guard Array(bytes[0..<8]) == magic else { throw .badMagic(what: what) }
        guard CRC32C.checksum(bytes[0..<(headerSize - 4)]) == readU32(bytes, headerSize - 4) else {
            throw .checksumMismatch(what: what, at: 0)
        }
        var reader = HistoryByteReader(bytes, range: 8..<headerSize, what: what)
        let version = try reader.u32()
        guard version == Self.version else { throw .unsupportedVersion(what: what, version: version) }
        let flags = try reader.u32()
        let header = Header(
            closedCleanly: flags & 1 == 1, snapshotID: try reader.u64(), baseSeq: try reader.u64(),
            bootID: Array(bytes[32..<48]))
        var transitions: [LedgerTransition] = []
        var offset = headerSize
        while offset < bytes.count {
            guard bytes.count - offset >= recordHeaderSize else { throw .truncated(what: what, at: offset) }
            let length = Int(readU32(bytes, offset))
            let start = offset + recordHeaderSize
            guard length <= bytes.count - start else { throw .truncated(what: what, at: offset) }
            guard CRC32C.checksum(bytes[start..<(start + length)]) == readU32(bytes, offset + 4) else {
                throw .checksumMismatch(what: what, at: offset)
            }
            var record = HistoryByteReader(bytes, range: start..<(start + length), what: what)
            let lower = try record.u64()
            let upper = try record.u64()
            guard lower <= upper, upper <= UInt64(Int.max) else { throw record.invalid() }
            let replacement = try record.data()
            let hasChange = try record.u8()
            guard hasChange <= 1 else { throw record.invalid() }
            let applied = hasChange == 1 ? try record.changeSet() : nil
            guard record.isAtEnd else { throw record.invalid() }
            transitions.append(
                LedgerTransition(
                    splice: ByteSplice(range: Int(lower)..<Int(upper), replacement: replacement), applied: applied))
            offset = start + length
        }
        return (header, transitions)
    }

    private static func readU32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in (offset..<(offset + 4)).reversed() { value = value << 8 | UInt32(bytes[k]) }
        return value
    }
}

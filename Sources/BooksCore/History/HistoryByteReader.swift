import FoundationEssentials

/// Reads what `HistoryByteWriter` wrote, checking every length against the data left: corrupt
/// input ends in a `HistoryFormatError`, never in a crash or an oversized allocation.
public struct HistoryByteReader: Sendable {
    private let bytes: [UInt8]
    /// The offset of the next unread byte.
    public private(set) var offset: Int
    private let end: Int
    private let what: String

    /// Reads `bytes[range]`; errors name `what` ("snapshot", "journal").
    public init(_ bytes: [UInt8], range: Range<Int>? = nil, what: String) {
        self.bytes = bytes
        let range = range ?? 0..<bytes.count
        offset = range.lowerBound
        end = range.upperBound
        self.what = what
    }

    /// Whether every byte was read.
    public var isAtEnd: Bool { offset == end }

    private mutating func take(_ count: Int) throws(HistoryFormatError) -> Range<Int> {
        guard count >= 0, count <= end - offset else { throw .truncated(what: what, at: offset) }
        defer { offset += count }
        return offset..<(offset + count)
    }

    /// An error for an impossible value just read.
    public func invalid() -> HistoryFormatError { .invalid(what: what, at: offset) }

    /// Reads one byte.
    public mutating func u8() throws(HistoryFormatError) -> UInt8 { bytes[try take(1).lowerBound] }

    /// Reads a 32-bit unsigned integer.
    public mutating func u32() throws(HistoryFormatError) -> UInt32 {
        let r = try take(4)
        var value: UInt32 = 0
        for k in r.reversed() { value = value << 8 | UInt32(bytes[k]) }
        return value
    }

    /// Reads a 64-bit unsigned integer.
    public mutating func u64() throws(HistoryFormatError) -> UInt64 {
        let r = try take(8)
        var value: UInt64 = 0
        for k in r.reversed() { value = value << 8 | UInt64(bytes[k]) }
        return value
    }

    /// Reads a count or length, which must fit in what is left (at `minimumSize` bytes each).
    public mutating func count(minimumSize: Int = 1) throws(HistoryFormatError) -> Int {
        let value = try u64()
        guard value <= UInt64(end - offset) / UInt64(max(1, minimumSize)) else { throw invalid() }
        return Int(value)
    }

    /// Reads a length-prefixed byte string.
    public mutating func data() throws(HistoryFormatError) -> [UInt8] {
        let n = try count()
        return Array(bytes[try take(n)])
    }

    /// Reads a length-prefixed UTF-8 string (invalid UTF-8 is an error).
    public mutating func string() throws(HistoryFormatError) -> String {
        let n = try count()
        let r = try take(n)
        guard let value = String(validating: bytes[r], as: UTF8.self) else { throw invalid() }
        return value
    }

    /// Reads a time.
    public mutating func time() throws(HistoryFormatError) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: try u64()))
    }

    /// Reads a book.
    public mutating func book() throws(HistoryFormatError) -> Book {
        Book(id: try string(), name: try string(), author: try string())
    }

    /// Reads a list of books.
    public mutating func books() throws(HistoryFormatError) -> [Book] {
        let n = try count(minimumSize: 24)
        var list: [Book] = []
        list.reserveCapacity(n)
        for _ in 0..<n { list.append(try book()) }
        return list
    }

    /// Reads a change set.
    public mutating func changeSet() throws(HistoryFormatError) -> SequencedChangeSet {
        let epoch = try string()
        let seq = try u64()
        let layout = try u8()
        let source: ChangeSource
        switch layout {
        case 0: source = .file
        case 1: source = .client
        case 2, 3:
            guard let named = ChangeSource(rawValue: try string()) else { throw invalid() }
            source = named
        default: throw invalid()
        }
        let time = try time()
        var changes = ChangeSet(inserted: try books())
        let updates = try count(minimumSize: 48)
        for _ in 0..<updates { changes.updated.append(BookUpdate(old: try book(), new: try book())) }
        changes.deleted = try books()
        var remapped: [IdentifierRemap] = []
        for _ in 0..<(try count(minimumSize: 16)) {
            remapped.append(IdentifierRemap(temporaryID: try string(), permanentID: try string()))
        }
        var change = SequencedChangeSet(
            epoch: epoch, seq: seq, source: source, time: time, changes: changes, remapped: remapped,
            actor: layout >= 2 ? try actor() : nil)
        if layout == 3 { try mergeInfo(into: &change) }
        return change
    }

    /// Reads a merged save's base and the reverted seqs (see ``HistoryByteWriter/mergeInfo(_:)``).
    public mutating func mergeInfo(into change: inout SequencedChangeSet) throws(HistoryFormatError) {
        let mask = try u8()
        guard mask & ~3 == 0 else { throw invalid() }
        if mask & 1 != 0 { change.mergedBase = try u64() }
        if mask & 2 != 0 {
            var reverts: [UInt64] = []
            for _ in 0..<(try count(minimumSize: 8)) { reverts.append(try u64()) }
            change.reverts = reverts
        }
    }

    /// Reads an actor (see ``HistoryByteWriter/actor(_:)``).
    public mutating func actor() throws(HistoryFormatError) -> ChangeActor? {
        let mask = try u8()
        guard mask != 0 else { return nil }
        guard mask & 0x80 != 0 else { throw invalid() }
        let more = mask & 0x40 != 0 ? try u8() : 0
        guard more & ~3 == 0 else { throw invalid() }
        var actor = ChangeActor()
        if mask & 1 != 0 { actor.uid = try u32() }
        if mask & 2 != 0 { actor.user = try string() }
        if mask & 4 != 0 { actor.pid = Int32(bitPattern: try u32()) }
        if mask & 8 != 0 { actor.program = try string() }
        if mask & 16 != 0 { actor.host = try string() }
        if mask & 32 != 0 { actor.editor = try string() }
        if more & 1 != 0 { actor.via = try string() }
        if more & 2 != 0 { actor.natsUser = try string() }
        return actor
    }
}

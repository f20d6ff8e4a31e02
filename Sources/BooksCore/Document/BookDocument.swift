import Glibc

/// The parsed content of a book file: its exact bytes, every line classified, and an index of the
/// books by id — without a `String` per field, so a million rows cost little more than the file.
///
/// Guarantees:
/// - `bytes` is exactly the content that was parsed; rendering edits keeps every other byte.
/// - Every line is one of: blank, comment, book, new book (`name|author`, waiting for an id), or bad.
///   The first row with an id is the book; a later row with the same id is a bad line.
/// - A two-field row whose first field is a known id or looks like a UUID is a bad line, not a new book.
public struct BookDocument: Sendable {
    /// The file content this document describes.
    public internal(set) var bytes: [UInt8]
    var lines: [LineRecord]
    var index: IDIndex
    /// Lines longer than this (in bytes, without the line end) are bad lines.
    public let lineLimit: Int
    /// The file's line-end style (from its first line end; `\n` for a file without one).
    public internal(set) var lineEnding: LineEnding
    /// The number of books.
    public internal(set) var bookCount = 0
    /// The number of bad lines.
    public internal(set) var badLineCount = 0
    /// The number of `name|author` rows waiting for an id.
    public internal(set) var newBookCount = 0
    var duplicateCount = 0

    /// The default line-length limit: 1 MiB.
    public static let defaultLineLimit = 1 << 20

    /// An empty document (no file, or an empty one).
    public init(lineLimit: Int = BookDocument.defaultLineLimit) {
        self.bytes = []
        self.lines = []
        self.index = IDIndex(expectedCount: 0)
        self.lineLimit = lineLimit
        self.lineEnding = .lf
    }

    /// Parses `bytes`. `previous`, when given, is the state before: a two-field row whose first
    /// field is one of its ids is a bad line (a slip), not a new book. So is one whose first field
    /// is in `slipIDs` (the `slipIDList()` of a document restored from saved history).
    public init(
        parsing bytes: [UInt8], lineLimit: Int = BookDocument.defaultLineLimit,
        previous: BookDocument? = nil, slipIDs: [[UInt8]] = []
    ) {
        self.init(lineLimit: lineLimit)
        self.bytes = bytes
        let estimate = bytes.count / 48 + 16
        lines = Self.parseLines(bytes, from: 0, to: bytes.count, lineLimit: lineLimit)
        lineEnding = Self.detectLineEnding(lines)
        var counters = Counters()
        self.index = IDIndex(expectedCount: 0)  // released: the local index below is the only copy
        var index = IDIndex(expectedCount: estimate)
        var slips = previous?.slipIDs() ?? []
        for id in slipIDs { slips.insert(IDKey(bytes: id)) }
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            lines.withUnsafeMutableBufferPointer { records in
                let lookahead = 16
                for k in records.indices {
                    if k + lookahead < records.count, records[k + lookahead].kind == .book {
                        let ahead = records[k + lookahead]
                        index.prefetch(IDIndex.hash(base, ahead.start, Int(ahead.separator1)))
                    }
                    Self.classify(k, records, base, &index, &counters, previous: previous, slips: slips)
                }
            }
        }
        self.index = index
        apply(counters)
    }

    /// The number of lines, of every kind.
    public var lineCount: Int { lines.count }

    static func detectLineEnding(_ lines: [LineRecord]) -> LineEnding {
        for line in lines where line.hasNewline { return line.hasCR ? .crlf : .lf }
        return .lf
    }

    /// Splits `bytes[from..<to]` into classified-by-shape line records (no id checks yet).
    static func parseLines(_ bytes: [UInt8], from: Int, to: Int, lineLimit: Int) -> [LineRecord] {
        var result: [LineRecord] = []
        result.reserveCapacity((to - from) / 48 + 4)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = from
            while start < to {
                let end: Int
                let hasNewline: Bool
                if let hit = memchr(base + start, 0x0A, to - start) {
                    end = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                    hasNewline = true
                } else {
                    end = to
                    hasNewline = false
                }
                let hasCR = hasNewline && end > start && base[end - 1] == 0x0D
                let contentEnd = hasCR ? end - 1 : end
                result.append(
                    LineParser.parse(
                        base, start: start, contentEnd: contentEnd, hasCR: hasCR,
                        hasNewline: hasNewline, lineLimit: lineLimit))
                start = hasNewline ? end + 1 : end
            }
        }
        return result
    }

    /// Running totals while lines are classified.
    struct Counters {
        var books = 0, bad = 0, newBooks = 0, duplicates = 0
    }

    mutating func apply(_ counters: Counters) {
        bookCount = counters.books
        badLineCount = counters.bad
        newBookCount = counters.newBooks
        duplicateCount = counters.duplicates
    }

    /// Decides duplicates and slips for line `k` (already shape-parsed) during a full parse, and
    /// registers a book in the index. Lines before `k` are already classified.
    static func classify(
        _ k: Int, _ records: UnsafeMutableBufferPointer<LineRecord>, _ base: UnsafePointer<UInt8>,
        _ index: inout IDIndex, _ counters: inout Counters, previous: BookDocument?,
        slips: Set<IDKey>
    ) {
        let record = records[k]
        switch record.kind {
        case .book:
            let idLength = Int(record.separator1)
            let hash = IDIndex.hash(base, record.start, idLength)
            let existing = index.find(hash) { line in
                let other = records[line]
                return Int(other.separator1) == idLength
                    && memcmp(base + other.start, base + record.start, idLength) == 0
            }
            if existing != nil {
                records[k].kind = .badDuplicateID
                counters.duplicates += 1
                counters.bad += 1
            } else {
                index.insert(hash, line: k)
                counters.books += 1
            }
        case .newBook:
            let idLength = Int(record.separator1)
            let field = UnsafeBufferPointer(start: base + record.start, count: idLength)
            var known = LineParser.looksLikeUUID(base, start: record.start, end: record.start + idLength)
            if !known, let previous { known = previous.containsID(bytes: field) }
            if !known, !slips.isEmpty { known = slips.contains(IDKey(field)) }
            if !known {
                let hash = IDIndex.hash(base, record.start, idLength)
                known =
                    index.find(hash) { line in
                        let other = records[line]
                        return Int(other.separator1) == idLength
                            && memcmp(base + other.start, base + record.start, idLength) == 0
                    } != nil
            }
            if known {
                records[k].kind = .badMissingField
                counters.bad += 1
            } else {
                counters.newBooks += 1
            }
        default:
            if record.kind.isBad { counters.bad += 1 }
        }
    }
}

extension BookDocument {
    /// The first fields of two-field rows judged slips (bad lines, not new books), for saving
    /// with the document's bytes (see `init(parsing:lineLimit:previous:slipIDs:)`).
    public func slipIDList() -> [[UInt8]] { slipIDs().map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) } }

    /// The first fields of two-field rows already judged slips (`badMissingField`): they stay
    /// slips, not new books, for as long as the row stands.
    func slipIDs() -> Set<IDKey> {
        guard badLineCount > 0 else { return [] }
        var result = Set<IDKey>()
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for record in lines where record.kind == .badMissingField {
                result.insert(IDKey(UnsafeBufferPointer(start: base + record.start, count: Int(record.separator1))))
            }
        }
        return result
    }
}

/// An id's bytes, as a hashable key for small sets.
struct IDKey: Hashable, Sendable {
    let bytes: [UInt8]
    init(_ buffer: UnsafeBufferPointer<UInt8>) { bytes = Array(buffer) }
    init(bytes: [UInt8]) { self.bytes = bytes }
}

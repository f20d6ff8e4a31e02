import Glibc

extension BookDocument {
    /// The line index of the book with the id given as raw bytes, if any.
    func lineIndex(ofID id: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let idBase = id.baseAddress ?? (id.count == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else {
            return nil
        }
        let idLength = id.count
        let hash = IDIndex.hash(idBase, 0, idLength)
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            return lines.withUnsafeBufferPointer { records in
                index.find(hash) { line in
                    let other = records[line]
                    return Int(other.separator1) == idLength && memcmp(base + other.start, idBase, idLength) == 0
                }
            }
        }
    }

    /// True when a book has this id (raw bytes).
    func containsID(bytes id: UnsafeBufferPointer<UInt8>) -> Bool {
        lineIndex(ofID: id) != nil
    }

    /// The line index of the book with `id`, if any.
    public func lineIndex(ofBook id: String) -> Int? {
        var key = Array(id.utf8)
        return key.withUnsafeMutableBufferPointer { lineIndex(ofID: UnsafeBufferPointer($0)) }
    }

    /// True when a book has `id`.
    public func contains(id: String) -> Bool { lineIndex(ofBook: id) != nil }

    /// The book with `id`, if any.
    public func book(id: String) -> Book? {
        guard let line = lineIndex(ofBook: id) else { return nil }
        return book(atLine: line)
    }

    /// The book on line `index` (0-based), or nil when that line is not a book.
    public func book(atLine index: Int) -> Book? {
        guard index >= 0, index < lines.count, lines[index].kind == .book else { return nil }
        return bytes.withUnsafeBufferPointer { Self.decodeBook(lines[index], $0.baseAddress!) }
    }

    /// Every book in file order.
    public var books: [Book] {
        var result: [Book] = []
        result.reserveCapacity(bookCount)
        forEachBook { result.append($0) }
        return result
    }

    /// Calls `body` with every book in file order.
    public func forEachBook<E: Error>(_ body: (Book) throws(E) -> Void) throws(E) {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBufferPointer { buffer throws(E) in
            let base = buffer.baseAddress!
            for record in lines where record.kind == .book {
                try body(Self.decodeBook(record, base))
            }
        }
    }

    /// Every bad line with its 1-based line number and reason.
    public var badLines: [BadLine] {
        guard badLineCount > 0 else { return [] }
        var result: [BadLine] = []
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for (k, record) in lines.enumerated() where record.kind.isBad {
                result.append(
                    BadLine(
                        lineNumber: k + 1, reason: reason(forLine: k, base),
                        text: Self.displayText(record, base)))
            }
        }
        return result
    }

    /// The raw first field (before the first `|`) of every bad line, for slip detection.
    public var badLineFirstFields: Set<String> {
        guard badLineCount > 0 else { return [] }
        var result = Set<String>()
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for record in lines where record.kind.isBad && record.kind != .badUTF8 && record.kind != .badTooLong {
                let end = record.start + Int(record.length)
                var i = record.start
                while i < end, base[i] != LineParser.pipe { i += 1 }
                result.insert(
                    String(
                        decoding: UnsafeBufferPointer(start: base + record.start, count: i - record.start),
                        as: UTF8.self))
            }
        }
        return result
    }

    /// `name|author` rows waiting for a permanent id, with their 0-based line index.
    public var newBookRows: [NewBookRow] {
        guard newBookCount > 0 else { return [] }
        var result: [NewBookRow] = []
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for (k, record) in lines.enumerated() where record.kind == .newBook {
                let s1 = Int(record.separator1)
                let name = Self.decodeField(base, record.start, record.start + s1, record.escaped)
                let author = Self.decodeField(
                    base, record.start + s1 + 1, record.start + Int(record.length), record.escaped)
                result.append(NewBookRow(lineIndex: k, name: name, author: author))
            }
        }
        return result
    }

    func reason(forLine k: Int, _ base: UnsafePointer<UInt8>) -> BadLineReason {
        let record = lines[k]
        let end = record.start + Int(record.length)
        switch record.kind {
        case .badUTF8: return .invalidUTF8
        case .badTooLong: return .tooLong(limit: min(lineLimit, LineRecord.maximumSeparatorOffset))
        case .badEmptyID: return .emptyID
        case .badFieldCount: return .wrongFieldCount(LineParser.fieldCount(base, start: record.start, end: end))
        case .badMissingField:
            return .missingField(
                id: Self.decodeField(base, record.start, record.start + Int(record.separator1), record.escaped))
        case .badDuplicateID:
            let id = Self.decodeField(base, record.start, record.start + Int(record.separator1), false)
            let first = lineIndex(ofBook: id).map { $0 + 1 } ?? 0
            return .duplicateID(id, firstLine: first)
        default: return .wrongFieldCount(0)
        }
    }

    static func displayText(_ record: LineRecord, _ base: UnsafePointer<UInt8>) -> String {
        let count = min(Int(record.length), 800)
        let text = String(decoding: UnsafeBufferPointer(start: base + record.start, count: count), as: UTF8.self)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    @inline(__always)
    static func decodeField(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ escaped: Bool) -> String {
        let field = UnsafeBufferPointer(start: base + start, count: end - start)
        return escaped ? RowEscaping.unescape(field) : String(decoding: field, as: UTF8.self)
    }

    @inline(__always)
    static func decodeBook(_ record: LineRecord, _ base: UnsafePointer<UInt8>) -> Book {
        let s1 = record.start + Int(record.separator1)
        let s2 = record.start + Int(record.separator2)
        let end = record.start + Int(record.length)
        return Book(
            id: decodeField(base, record.start, s1, false),
            name: decodeField(base, s1 + 1, s2, record.escaped),
            author: decodeField(base, s2 + 1, end, record.escaped))
    }

    /// True when two book lines (possibly in different buffers) have the same name and author.
    @inline(__always)
    static func sameValues(
        _ a: LineRecord, _ aBase: UnsafePointer<UInt8>, _ b: LineRecord, _ bBase: UnsafePointer<UInt8>
    ) -> Bool {
        let aValues = Int(a.length) - Int(a.separator1)
        let bValues = Int(b.length) - Int(b.separator1)
        if aValues == bValues, Int(a.separator2) - Int(a.separator1) == Int(b.separator2) - Int(b.separator1),
            memcmp(aBase + a.start + Int(a.separator1), bBase + b.start + Int(b.separator1), aValues) == 0
        {
            return true
        }
        guard a.escaped || b.escaped else { return false }
        let x = decodeBook(a, aBase)
        let y = decodeBook(b, bBase)
        return x.name.utf8.elementsEqual(y.name.utf8) && x.author.utf8.elementsEqual(y.author.utf8)
    }
}

/// A row typed by hand as `name|author`: a new book that has no id yet.
public struct NewBookRow: Sendable, Hashable {
    /// The 0-based line index in the document.
    public var lineIndex: Int
    public var name: String
    public var author: String
}

/// The edits a three-way merge makes to the save's text: rows to rewrite or remove (by id, at
/// their line in the save) and books to insert (placed by their position in the current file).
struct MergePlan: Sendable {
    /// Books in the save whose row becomes this book, or is removed (nil).
    var rewrites: [String: Book?] = [:]
    /// Books not in the save that go into the result.
    var inserts: [String: Book] = [:]

    var isEmpty: Bool { rewrites.isEmpty && inserts.isEmpty }

    /// The book with `id` becomes `book` (nil: removed); `inSave` says whether the save has a row for it.
    mutating func set(id: String, to book: Book?, inSave: Bool) {
        if inSave {
            rewrites[id] = .some(book)
        } else if let book {
            inserts[id] = book
        }
    }

    /// The books the plan changes in `save`: inserts, rewrites, removals.
    func changes(from save: BookDocument) -> ChangeSet {
        var changes = ChangeSet(inserted: inserts.values.sorted { $0.id < $1.id })
        for (id, book) in rewrites.sorted(by: { $0.key < $1.key }) {
            guard let old = save.book(id: id) else { continue }
            if let book { changes.updated.append(BookUpdate(old: old, new: book)) } else { changes.deleted.append(old) }
        }
        return changes
    }

    /// The save's bytes with the plan applied.
    func render(onto save: BookDocument, current: BookDocument) -> [UInt8] {
        var replaced: [Int: Book?] = [:]
        for (id, book) in rewrites {
            guard let line = save.lineIndex(ofBook: id) else { continue }
            replaced[line] = book
        }
        let (after, appended) = placeInserts(save: save, current: current, replaced: replaced)
        let lines = save.lines
        let bytes = save.bytes
        let ending = save.lineEnding.bytes
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 128 * (inserts.count + 1))
        var copied = 0
        for line in Set(replaced.keys).union(after.keys).sorted() {
            let record = lines[line]
            let contentEnd = record.start + Int(record.length)
            let lineEnd = contentEnd + (record.hasCR ? 1 : 0) + (record.hasNewline ? 1 : 0)
            if let replacement = replaced[line] {
                out.append(contentsOf: bytes[copied..<record.start])
                if let book = replacement {
                    out.append(contentsOf: RowEscaping.row(for: book))
                    out.append(contentsOf: bytes[contentEnd..<lineEnd])
                }
            } else {
                out.append(contentsOf: bytes[copied..<lineEnd])
            }
            copied = lineEnd
            guard let books = after[line] else { continue }
            if !record.hasNewline, replaced[line] != .some(nil) { out.append(contentsOf: ending) }
            for book in books {
                out.append(contentsOf: RowEscaping.row(for: book))
                out.append(contentsOf: ending)
            }
        }
        out.append(contentsOf: bytes[copied..<bytes.count])
        if !appended.isEmpty {
            if let last = out.last, last != 0x0A { out.append(contentsOf: ending) }
            for book in appended {
                out.append(contentsOf: RowEscaping.row(for: book))
                out.append(contentsOf: ending)
            }
        }
        return out
    }

    /// Where each inserted book goes: after the save's line holding the nearest book before it in
    /// the current file that is in the result (or after the insert placed there before it), else
    /// at the end. Inserts keep the current file's order.
    func placeInserts(
        save: BookDocument, current: BookDocument, replaced: [Int: Book?]
    ) -> (after: [Int: [Book]], appended: [Book]) {
        guard !inserts.isEmpty else { return ([:], []) }
        let ordered = inserts.values.map { (line: current.lineIndex(ofBook: $0.id) ?? Int.max, book: $0) }
            .sorted { $0.line < $1.line }
        var after: [Int: [Book]] = [:]
        var appended: [Book] = []
        var anchorOfInsert: [String: Int?] = [:]  // id → save line it went after (nil: appended)
        let lines = current.lines
        for (line, book) in ordered {
            var anchor: Int?? = nil  // nil: not decided yet; .some(nil): append
            var k = line == Int.max ? -1 : line - 1
            while anchor == nil, k >= 0 {
                if lines[k].kind == .book, let previous = current.book(atLine: k) {
                    if let placed = anchorOfInsert[previous.id] {
                        anchor = .some(placed)
                    } else if let saveLine = save.lineIndex(ofBook: previous.id), replaced[saveLine] != .some(nil) {
                        anchor = .some(saveLine)
                    }
                }
                k -= 1
            }
            let decided = anchor ?? nil
            anchorOfInsert[book.id] = .some(decided)
            if let decided { after[decided, default: []].append(book) } else { appended.append(book) }
        }
        return (after, appended)
    }
}

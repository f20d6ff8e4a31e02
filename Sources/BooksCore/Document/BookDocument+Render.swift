extension BookDocument {
    /// The file content after `edits`: every line not edited — books, comments, blank and bad
    /// lines — is kept byte-for-byte at its place; appended rows use the file's line-end style.
    /// Several edits of the same line: the last one wins.
    public func rendering(_ edits: [DocumentEdit]) -> [UInt8] {
        let (replacements, appended) = lineReplacements(edits)
        var out: [UInt8] = []
        // The rows' own size (an eighth more for escapes and line ends), not a guess per row: a
        // million appended rows of 67 bytes would otherwise reserve 128 MB for 67.
        var rows = 0
        for book in appended { rows += Self.rowEstimate(book) }
        for case .some(let book) in replacements.values { rows += Self.rowEstimate(book) }
        out.reserveCapacity(bytes.count + rows + rows / 8 + 64)
        let copied = appendReplacing(replacements, from: 0, into: &out)
        out.append(contentsOf: bytes[copied..<bytes.count])
        if !appended.isEmpty {
            if let last = out.last, last != 0x0A { out.append(contentsOf: lineEnding.bytes) }
            for book in appended {
                out.append(contentsOf: RowEscaping.row(for: book))
                out.append(contentsOf: lineEnding.bytes)
            }
        }
        return out
    }

    /// The line replacements of `edits` (a nil book: the line is deleted; the last edit of a line
    /// wins) and the books they append, in order.
    func lineReplacements(_ edits: [DocumentEdit]) -> (replacements: [Int: Book?], appended: [Book]) {
        var replacements: [Int: Book?] = [:]
        var appended: [Book] = []
        for edit in edits {
            switch edit {
            case .replace(let line, let book):
                precondition(line >= 0 && line < lines.count, "edit of a line that does not exist")
                replacements[line] = .some(book)
            case .delete(let line):
                precondition(line >= 0 && line < lines.count, "edit of a line that does not exist")
                replacements[line] = .some(nil)
            case .append(let book): appended.append(book)
            }
        }
        return (replacements, appended)
    }

    /// Appends to `out` the bytes from `start` to the end of the last line of `replacements`, each
    /// of those lines replaced by its book's row (with the line's own line end) or left out;
    /// returns the offset after the last replaced line (`start` when there is none).
    func appendReplacing(_ replacements: [Int: Book?], from start: Int, into out: inout [UInt8]) -> Int {
        var copied = start
        for line in replacements.keys.sorted() {
            let record = lines[line]
            out.append(contentsOf: bytes[copied..<record.start])
            let contentEnd = record.start + Int(record.length)
            let lineEnd = contentEnd + (record.hasCR ? 1 : 0) + (record.hasNewline ? 1 : 0)
            if case .some(.some(let book)) = replacements[line] {
                out.append(contentsOf: RowEscaping.row(for: book))
                out.append(contentsOf: bytes[contentEnd..<lineEnd])
            }
            copied = lineEnd
        }
        return copied
    }

    /// The bytes of `book`'s row without escapes, with its two separators and a line end.
    private static func rowEstimate(_ book: Book) -> Int {
        book.id.utf8.count + book.name.utf8.count + book.author.utf8.count + 4
    }
}

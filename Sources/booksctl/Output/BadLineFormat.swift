import BooksCore

/// How `status` and `check` print bad lines (pure): `FILE:LINE: MESSAGE: TEXT` (the form compilers
/// use, so editors jump to the line), or one `{"line","code","message","text"}` JSON object.
enum BadLineFormat {
    /// `books.txt:19: wrong number of fields: expected 3 (id|name|author), found 4: a|b|c|d`
    /// (every part escaped for a terminal); with `book`, a bad row of a JSON file, its N-th book:
    /// `books.json: book 3: the id is empty: |a|b`.
    static func text(_ bad: BadLine, file: String, book: Bool = false) -> String {
        let place = book ? " book \(bad.lineNumber)" : String(bad.lineNumber)
        var line = "\(TextCell.escape(file)):\(place): \(TextCell.escape(bad.reason.description))"
        if !bad.text.isEmpty { line += ": " + TextCell.escape(bad.text) }
        return line
    }

    /// `{"line":19,"code":"wrong-field-count","message":"…","text":"…"}` on one line; with `file`,
    /// `{"file":"…","line":19,…}`.
    static func json(_ bad: BadLine, file: String? = nil) -> String {
        JSONLine.object(
            (file.map { [("file", JSONLine.string($0))] } ?? []) + [
                ("line", String(bad.lineNumber)), ("code", JSONLine.string(bad.reason.code)),
                ("message", JSONLine.string(bad.reason.description)), ("text", JSONLine.string(bad.text)),
            ])
    }
}

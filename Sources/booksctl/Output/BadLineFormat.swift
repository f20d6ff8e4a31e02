import BooksCore

/// How `status` and `check` print bad lines (pure): `FILE:LINE: MESSAGE: TEXT` (the form compilers
/// use, so editors jump to the line), or one `{"line","code","message","text"}` JSON object.
enum BadLineFormat {
    /// `books.txt:19: wrong number of fields: expected 3 (id|name|author), found 4: a|b|c|d`
    /// (every part escaped for a terminal).
    static func text(_ bad: BadLine, file: String) -> String {
        var line = "\(TextCell.escape(file)):\(bad.lineNumber): \(TextCell.escape(bad.reason.description))"
        if !bad.text.isEmpty { line += ": " + TextCell.escape(bad.text) }
        return line
    }

    /// `{"line":19,"code":"wrong-field-count","message":"…","text":"…"}` on one line.
    static func json(_ bad: BadLine) -> String {
        JSONLine.object([
            ("line", String(bad.lineNumber)), ("code", JSONLine.string(bad.reason.code)),
            ("message", JSONLine.string(bad.reason.description)), ("text", JSONLine.string(bad.text)),
        ])
    }
}

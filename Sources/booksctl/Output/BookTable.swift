import BooksCore

/// Formats a list of books for `list` and `get`.
enum BookTable {
    /// An aligned table with a header (for terminals): columns padded by display width and, when
    /// `width` is given, cut with `…` to fit it (see `TableLayout`).
    static func aligned(_ books: [Book], style: Style, width: Int? = nil) -> [String] {
        let rows = books.map { [TextCell.escape($0.id), TextCell.escape($0.name), TextCell.escape($0.author)] }
        let header = ["ID", "NAME", "AUTHOR"]
        var natural = header.map(DisplayWidth.of)
        for row in rows { for (i, cell) in row.enumerated() { natural[i] = max(natural[i], DisplayWidth.of(cell)) } }
        let widths = TableLayout.fit(natural, available: width)
        func render(_ row: [String]) -> String {
            let cells = row.enumerated().map { DisplayWidth.truncate($1, to: widths[$0]) }
            return DisplayWidth.pad(cells[0], to: widths[0]) + "  " + DisplayWidth.pad(cells[1], to: widths[1])
                + "  " + cells[2]
        }
        return [style.bold(render(header))] + rows.map(render)
    }

    /// One line per book: id, name, author separated by tabs (for pipes).
    static func tabSeparated(_ books: [Book]) -> [String] {
        books.map {
            [TextCell.escape($0.id), TextCell.escape($0.name), TextCell.escape($0.author)].joined(separator: "\t")
        }
    }

    /// A JSON array of `{"id","name","author"}` objects, one per line.
    static func json(_ books: [Book]) -> String {
        guard !books.isEmpty else { return "[]" }
        let items = books.map {
            "  "
                + JSONLine.object([
                    ("id", JSONLine.string($0.id)), ("name", JSONLine.string($0.name)),
                    ("author", JSONLine.string($0.author)),
                ])
        }
        return "[\n" + items.joined(separator: ",\n") + "\n]"
    }
}

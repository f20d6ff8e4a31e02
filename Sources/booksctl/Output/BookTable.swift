import BooksCore

/// Formats a list of books for `list` and `get`.
enum BookTable {
    /// An aligned table with a header (for terminals).
    static func aligned(_ books: [Book], style: Style) -> [String] {
        let rows = books.map { [TextCell.escape($0.id), TextCell.escape($0.name), TextCell.escape($0.author)] }
        let header = ["ID", "NAME", "AUTHOR"]
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func render(_ row: [String]) -> String {
            (row[0].padding(widths[0]) + "  " + row[1].padding(widths[1]) + "  " + row[2])
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

import BooksCore

/// Formats a list of books for `list` and `get`.
enum BookTable {
    /// The header of the aligned table.
    static let header = ["ID", "NAME", "AUTHOR"]

    /// An aligned table with a header (for terminals): columns padded by display width and, when
    /// `width` is given, cut with `…` to fit it (see `TableLayout`).
    static func aligned(_ books: [Book], style: Style, width: Int? = nil) -> [String] {
        let rows = cells(books)
        let widths = TableLayout.widths(of: [header] + rows, available: width)
        return [style.bold(TableLayout.lines([header], widths: widths, available: width)[0])]
            + TableLayout.lines(rows, widths: widths, available: width)
    }

    /// Each book's id, name and author, escaped for a terminal.
    static func cells(_ books: [Book]) -> [[String]] {
        books.map { [TextCell.escape($0.id), TextCell.escape($0.name), TextCell.escape($0.author)] }
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

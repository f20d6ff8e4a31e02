import BooksCore

/// Turns the pages of a streamed `list` into output bytes as they arrive (pure: the caller
/// writes them). Formats: JSON lines, one JSON array, tab-separated lines (pipes), or a table
/// with a header before the first page and a count after the last (terminals), whose column
/// widths are measured on the first page and kept for every later one, so that columns never
/// drift (a longer value later is cut with `…`; without a width, `--full`, only its row is wider).
struct ListPrinter: Sendable {
    enum Format: Sendable {
        case jsonLines, jsonArray, tabSeparated
        /// A terminal table; `width`: the terminal's columns to fit (nil: `--full`).
        case table(Style, width: Int? = nil)
    }

    let format: Format
    private(set) var printed = 0
    /// The table's column widths, set by its first page.
    private var widths: [Int]?

    init(format: Format) { self.format = format }

    /// The output for one page.
    mutating func page(_ books: [Book]) -> [UInt8] {
        defer { printed += books.count }
        var out: [UInt8] = []
        switch format {
        case .jsonLines:
            out.reserveCapacity(books.count * 120)
            for book in books {
                Self.appendObject(book, to: &out)
                out.append(UInt8(ascii: "\n"))
            }
        case .jsonArray:
            out.reserveCapacity(books.count * 124 + 2)
            for book in books {
                out.append(contentsOf: Array((printed == 0 && out.isEmpty ? "[\n  " : ",\n  ").utf8))
                Self.appendObject(book, to: &out)
            }
        case .tabSeparated:
            for line in BookTable.tabSeparated(books) { out.append(contentsOf: Array((line + "\n").utf8)) }
        case .table(let style, let width):
            guard !books.isEmpty else { return [] }
            let rows = BookTable.cells(books)
            var lines: [String] = []
            if widths == nil {
                let measured = TableLayout.widths(of: [BookTable.header] + rows, available: width)
                widths = measured
                lines.append(style.bold(TableLayout.lines([BookTable.header], widths: measured, available: width)[0]))
            }
            lines += TableLayout.lines(rows, widths: widths ?? [], available: width)
            out.append(contentsOf: Array((lines.joined(separator: "\n") + "\n").utf8))
        }
        return out
    }

    /// The output after the last page, given the number of matches before offset and limit.
    func finish(total: Int) -> [UInt8] {
        switch format {
        case .jsonLines, .tabSeparated: return []
        case .jsonArray: return Array((printed == 0 ? "[]\n" : "\n]\n").utf8)
        case .table(let style, _):
            return Array((style.dim("\(printed) of \(total) book\(total == 1 ? "" : "s")") + "\n").utf8)
        }
    }

    /// `{"id":…,"name":…,"author":…}`.
    static func appendObject(_ book: Book, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONText.appendString(book.id, to: &out)
        out.append(contentsOf: #","name":"#.utf8)
        JSONText.appendString(book.name, to: &out)
        out.append(contentsOf: #","author":"#.utf8)
        JSONText.appendString(book.author, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Column widths for a table that must fit a terminal (pure): columns are separated by two
/// spaces; when the natural widths do not fit, the widest shrinkable column loses a column at a
/// time (never below `minimum`), the first column (the id) only when the others cannot shrink.
enum TableLayout {
    /// The smallest width a column is cut to.
    static let minimum = 6

    /// The widths to use for columns of `natural` widths within `available` columns (nil: no limit).
    static func fit(_ natural: [Int], available: Int?) -> [Int] {
        guard let available else { return natural }
        var widths = natural
        let separators = 2 * max(0, widths.count - 1)
        func total() -> Int { widths.reduce(0, +) + separators }
        while total() > available {
            let shrinkable = widths.indices.dropFirst().filter { widths[$0] > minimum }
            let candidates = shrinkable.isEmpty ? (widths[0] > minimum ? [0] : []) : Array(shrinkable)
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// The natural widths of `rows` (each cell's display width, the widest per column) fitted to
    /// `available` (nil: no limit).
    static func widths(of rows: [[String]], available: Int?) -> [Int] {
        var natural = [Int](repeating: 0, count: rows.first?.count ?? 0)
        for row in rows { for (i, cell) in row.enumerated() { natural[i] = max(natural[i], DisplayWidth.of(cell)) } }
        return fit(natural, available: available)
    }

    /// One line per row: every cell but the last cut to its column's width (when `available` is
    /// given) and padded to it, two spaces between columns; the last cell cut to the columns left
    /// of `available` (never padded). Without `available` nothing is cut: a longer cell makes
    /// only its own row wider.
    static func lines(_ rows: [[String]], widths: [Int], available: Int?) -> [String] {
        let lastWidth = available.map { available in
            max(widths.last ?? 0, available - widths.dropLast().reduce(0, +) - 2 * max(0, widths.count - 1))
        }
        return rows.map { row in
            row.enumerated().map { k, cell in
                if k == row.count - 1 { return lastWidth.map { DisplayWidth.truncate(cell, to: $0) } ?? cell }
                let cut = available == nil ? cell : DisplayWidth.truncate(cell, to: widths[k])
                return DisplayWidth.pad(cut, to: widths[k])
            }.joined(separator: "  ")
        }
    }

    /// The terminal's width: `COLUMNS` when it is a positive number, else the size of the terminal
    /// on stdout, else nil.
    static func terminalWidth() -> Int? {
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return columns
        }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// A one-row change to a generated file, and the bytes before/after.
struct RowEdit: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case rename = "edit name (middle row)"
        case typo = "fix a typo (same length, middle row)"
        case append = "append one row"
        case delete = "delete one row (middle)"
    }

    let kind: Kind
    let edited: [UInt8]

    /// Applies `kind` to `original` (`newRow` is used by `.append`).
    init(_ kind: Kind, of original: [UInt8], rows: Int, newRow: [UInt8]) {
        self.kind = kind
        switch kind {
        case .append:
            edited = original + newRow
        case .typo:
            // One ASCII byte of a name near the middle (the first name there starting with ASCII,
            // so the row stays valid UTF-8), so the file keeps its length.
            var (start, end) = Self.line(rows / 2, in: original)
            var at = original[start...].firstIndex(of: UInt8(ascii: "|"))! + 1
            while original[at] >= 0x80 {
                start = end
                end = original[start...].firstIndex(of: 0x0A)! + 1
                at = original[start...].firstIndex(of: UInt8(ascii: "|"))! + 1
            }
            var bytes = original
            bytes[at] = bytes[at] == UInt8(ascii: "X") ? UInt8(ascii: "Y") : UInt8(ascii: "X")
            edited = bytes
        case .rename, .delete:
            let (start, end) = Self.line(rows / 2, in: original)
            if kind == .delete {
                edited = Array(original[..<start]) + original[end...]
            } else {
                // `id|name|author\n` → `id|<new name>|author\n`
                let line = original[start..<end]
                let first = line.firstIndex(of: UInt8(ascii: "|"))!
                let second = line[(first + 1)...].firstIndex(of: UInt8(ascii: "|"))!
                edited =
                    Array(original[...first]) + Array("Le Rouge et le Noir (édition révisée)".utf8)
                    + original[second...]
            }
        }
    }

    /// The byte range `[start, end)` of line `k` (0-based), including its `\n`.
    static func line(_ k: Int, in bytes: [UInt8]) -> (Int, Int) {
        var start = 0
        var seen = 0
        while seen < k {
            start = bytes[start...].firstIndex(of: 0x0A)! + 1
            seen += 1
        }
        let end = bytes[start...].firstIndex(of: 0x0A)! + 1
        return (start, end)
    }
}

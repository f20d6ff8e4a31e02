import BooksClient
import BooksCore
import BooksProtocol

/// Formats a mirror update as `subscribe` lines: one line per changed book.
///
/// Order within an update: inserts, then updates, then deletes (each in the daemon's order).
/// Following several stores, each line names its store: `STORE: ` before a text line, a last
/// `"store"` key in a JSON line.
struct ChangeLineFormatter: Sendable {
    var json: Bool
    var style: Style

    /// `update`'s lines for `store`, each naming it.
    func forEachLine(for update: MirrorUpdate, store: String, _ body: (String) -> Void) {
        let name = JSONLine.string(store)
        let label = style.bold(TextCell.escape(store)) + ": "
        forEachLine(for: update) { line in
            body(json ? String(line.dropLast()) + ",\"store\":" + name + "}" : label + line)
        }
    }

    /// The `source` value of a line: `file`/`client` for live changes, `resync` for a snapshot diff,
    /// `snapshot` for `--initial` lines.
    static func source(of update: MirrorUpdate) -> String {
        switch update.origin {
        case .live: return update.source?.rawValue ?? "file"
        case .resync: return "resync"
        case .snapshot: return "snapshot"
        case .resyncRequired: return "resync"
        }
    }

    /// The lines (without newlines) for `update`.
    func lines(for update: MirrorUpdate) -> [String] {
        var lines: [String] = []
        forEachLine(for: update) { lines.append($0) }
        return lines
    }

    /// Calls `body` with each line (without newline) for `update`, in order, without building
    /// them all first (an `--initial` snapshot of a million books is a million lines).
    func forEachLine(for update: MirrorUpdate, _ body: (String) -> Void) {
        if update.origin == .resyncRequired { return body(resyncLine(update)) }
        let source = Self.source(of: update)
        for book in update.changes.inserted { body(line(update.seq, "insert", book, nil, source)) }
        for change in update.changes.updated { body(line(update.seq, "update", change.new, change.old, source)) }
        for book in update.changes.deleted { body(line(update.seq, "delete", book, nil, source)) }
    }

    /// `{"seq":N,"kind":…,"id":…,"name":…,"author":…,"source":…[,"oldName":…,"oldAuthor":…]}`.
    static func jsonLine(seq: UInt64, kind: String, book: Book, old: Book?, source: String) -> String {
        var pairs: [(String, String)] = [
            ("seq", String(seq)), ("kind", JSONLine.string(kind)), ("id", JSONLine.string(book.id)),
            ("name", JSONLine.string(book.name)), ("author", JSONLine.string(book.author)),
            ("source", JSONLine.string(source)),
        ]
        if let old {
            pairs.append(("oldName", JSONLine.string(old.name)))
            pairs.append(("oldAuthor", JSONLine.string(old.author)))
        }
        return JSONLine.object(pairs)
    }

    /// The one line that marks a gap in a feed without mirror.
    private func resyncLine(_ update: MirrorUpdate) -> String {
        let reason = update.reason ?? "unknown"
        if json {
            return JSONLine.object([
                ("seq", String(update.seq)), ("kind", JSONLine.string("resync")),
                ("epoch", JSONLine.string(update.epoch)),
                ("reason", JSONLine.string(reason)), ("source", JSONLine.string("resync")),
            ])
        }
        return "#\(update.seq) \(style.red("! resync")) \(style.dim("(\(TextCell.escape(reason)))")) "
            + "changes before this point were not replayed; use --mirror to get them"
    }

    private func line(_ seq: UInt64, _ kind: String, _ book: Book, _ old: Book?, _ source: String) -> String {
        if json { return Self.jsonLine(seq: seq, kind: kind, book: book, old: old, source: source) }
        let text = { (b: Book) in "\(TextCell.escape(b.name)) — \(TextCell.escape(b.author))" }
        let label: String
        switch kind {
        case "insert": label = style.green("+ insert")
        case "update": label = style.yellow("~ update")
        default: label = style.red("- delete")
        }
        var out = "#\(seq) \(label) \(style.dim(TextCell.escape(book.id)))  "
        if let old { out += "\(text(old)) → " }
        out += text(book) + "  " + style.dim("(\(source))")
        return out
    }
}

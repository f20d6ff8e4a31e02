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
        let cursor = Cursor(epoch: update.epoch, seq: update.seq, time: update.time.map(ISO8601.format))
        if json {
            // The parts shared by every line of the update are encoded once.
            let parts = JSONParts(cursor: cursor, source: source, actor: update.actor)
            for book in update.changes.inserted { body(parts.line(parts.insert, book, nil)) }
            for change in update.changes.updated { body(parts.line(parts.update, change.new, change.old)) }
            for book in update.changes.deleted { body(parts.line(parts.delete, book, nil)) }
            return
        }
        for book in update.changes.inserted { body(textLine(cursor, "insert", book, nil, source)) }
        for change in update.changes.updated { body(textLine(cursor, "update", change.new, change.old, source)) }
        for book in update.changes.deleted { body(textLine(cursor, "delete", book, nil, source)) }
    }

    /// The bytes of a `--json` line that are the same for every book of one update: exactly what
    /// `jsonLine(…, cursor:)` writes, built once per update instead of once per book.
    struct JSONParts {
        let insert: [UInt8]
        let update: [UInt8]
        let delete: [UInt8]
        let source: [UInt8]
        let tail: [UInt8]

        init(cursor: Cursor, source: String, actor: ChangeActor? = nil) {
            func head(_ kind: String) -> [UInt8] { Array(#"{"seq":\#(cursor.seq),"kind":"\#(kind)","id":"#.utf8) }
            insert = head("insert")
            update = head("update")
            delete = head("delete")
            self.source = Array((#","source":"# + JSONLine.string(source)).utf8)
            let pairs = cursor.jsonPairs + (actor.map { [("actor", JSONLine.actor($0))] } ?? [])
            tail = Array(("," + pairs.map { JSONLine.string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}").utf8)
        }

        /// One line: `head` (seq and kind), the book, the source, the old values, the cursor.
        func line(_ head: [UInt8], _ book: Book, _ old: Book?) -> String {
            var out = head
            out.reserveCapacity(
                head.count + tail.count + book.id.utf8.count + book.name.utf8.count + book.author.utf8.count + 48)
            JSONText.appendString(book.id, to: &out)
            out.append(contentsOf: #","name":"#.utf8)
            JSONText.appendString(book.name, to: &out)
            out.append(contentsOf: #","author":"#.utf8)
            JSONText.appendString(book.author, to: &out)
            out.append(contentsOf: source)
            if let old {
                out.append(contentsOf: #","oldName":"#.utf8)
                JSONText.appendString(old.name, to: &out)
                out.append(contentsOf: #","oldAuthor":"#.utf8)
                JSONText.appendString(old.author, to: &out)
            }
            out.append(contentsOf: tail)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `{"seq":N,"kind":…,"id":…,"name":…,"author":…,"source":…[,"oldName":…,"oldAuthor":…],
    /// "epoch":…,"time":…[,"actor":{…}]}` (`epoch` and `time` only when `cursor` is given,
    /// `actor` when the daemon said who made the change).
    static func jsonLine(
        seq: UInt64, kind: String, book: Book, old: Book?, source: String, cursor: Cursor? = nil,
        actor: ChangeActor? = nil
    ) -> String {
        var pairs: [(String, String)] = [
            ("seq", String(seq)), ("kind", JSONLine.string(kind)), ("id", JSONLine.string(book.id)),
            ("name", JSONLine.string(book.name)), ("author", JSONLine.string(book.author)),
            ("source", JSONLine.string(source)),
        ]
        if let old {
            pairs.append(("oldName", JSONLine.string(old.name)))
            pairs.append(("oldAuthor", JSONLine.string(old.author)))
        }
        if let cursor { pairs += cursor.jsonPairs }
        if let actor { pairs.append(("actor", JSONLine.actor(actor))) }
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
                ("time", update.time.map { JSONLine.string(ISO8601.format($0)) } ?? "null"),
            ])
        }
        return "#\(update.seq) \(style.red("! resync")) \(style.dim("(\(TextCell.escape(reason)))")) "
            + "changes before this point were not replayed; use --mirror to get them"
    }

    private func textLine(_ cursor: Cursor, _ kind: String, _ book: Book, _ old: Book?, _ source: String) -> String {
        let seq = cursor.seq
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

import BooksCore
import BooksProtocol
import FoundationEssentials
import Glibc

/// The lines of `log`, `show` and `blame`: one per change set (or book), local times.
struct HistoryPrinter: Sendable {
    var style: Style

    /// `SEQ  TIME  SOURCE  ACTOR  +I ~U -D  first book` for a change set.
    func line(_ change: Event) -> String {
        let inserted = change.inserted ?? []
        let updated = change.updated ?? []
        let deleted = change.deleted ?? []
        var counts: [String] = []
        if !inserted.isEmpty { counts.append(style.green("+\(inserted.count)")) }
        if !updated.isEmpty { counts.append(style.yellow("~\(updated.count)")) }
        if !deleted.isEmpty { counts.append(style.red("-\(deleted.count)")) }
        let first = inserted.first ?? updated.first?.new ?? deleted.first
        let total = inserted.count + updated.count + deleted.count
        var summary = first.map { "\"\(TextCell.escape($0.name))\" (\(TextCell.escape($0.author)))" } ?? ""
        if total > 1 { summary += " and \(total - 1) more" }
        let who = TextCell.escape(change.actor?.summary ?? "unknown")
        return [
            style.bold(String(change.seq)), Self.localTime(change.time), change.source?.rawValue ?? "file", who,
            counts.joined(separator: " "), summary,
        ].joined(separator: "  ")
    }

    /// Each book's change, indented (`log -p`, `show`).
    func patch(_ change: Event) -> [String] {
        let text = { (b: Book) in "\(TextCell.escape(b.name)) — \(TextCell.escape(b.author))" }
        var lines: [String] = []
        for book in change.inserted ?? [] {
            lines.append("    \(style.green("+")) \(style.dim(TextCell.escape(book.id)))  \(text(book))")
        }
        for update in change.updated ?? [] {
            lines.append(
                "    \(style.yellow("~")) \(style.dim(TextCell.escape(update.new.id)))  \(text(update.old)) → \(text(update.new))"
            )
        }
        for book in change.deleted ?? [] {
            lines.append("    \(style.red("-")) \(style.dim(TextCell.escape(book.id)))  \(text(book))")
        }
        return lines
    }

    /// `{"seq","epoch","time","source","actor","changes":[subscribe --json objects]}`.
    func json(_ change: Event, store: String?) -> String {
        let source = change.source?.rawValue ?? "file"
        let cursor = Cursor(epoch: change.epoch, seq: change.seq, time: change.time)
        var books: [String] = []
        func add(_ kind: String, _ book: Book, _ old: Book?) {
            books.append(
                ChangeLineFormatter.jsonLine(
                    seq: change.seq, kind: kind, book: book, old: old, source: source, cursor: cursor,
                    actor: change.actor))
        }
        for book in change.inserted ?? [] { add("insert", book, nil) }
        for update in change.updated ?? [] { add("update", update.new, update.old) }
        for book in change.deleted ?? [] { add("delete", book, nil) }
        var pairs: [(String, String)] = [
            ("seq", String(change.seq)), ("epoch", JSONLine.string(change.epoch)),
            ("time", change.time.map(JSONLine.string) ?? "null"), ("source", JSONLine.string(source)),
            ("actor", change.actor.map(JSONLine.actor) ?? "null"),
            ("changes", "[" + books.joined(separator: ",") + "]"),
        ]
        if let store { pairs.append(("store", JSONLine.string(store))) }
        return JSONLine.object(pairs)
    }

    /// `ID  SEQ  TIME  SOURCE  ACTOR  CHANGE  name — author` for a book's last change.
    func line(_ entry: BlameEntry) -> String {
        let book =
            entry.book.map { "\(TextCell.escape($0.name)) — \(TextCell.escape($0.author))" } ?? "(not in the file)"
        guard let source = entry.source else {
            return [TextCell.escape(entry.id), String(entry.seq), "(older than the history kept)", book].joined(
                separator: "  ")
        }
        return [
            TextCell.escape(entry.id), style.bold(String(entry.seq)), Self.localTime(entry.time), source.rawValue,
            TextCell.escape(entry.actor?.summary ?? "unknown"), entry.change ?? "", book,
        ].joined(separator: "  ")
    }

    /// `{"id","seq","time","source","actor","change","name","author"}` for a book's last change.
    func json(_ entry: BlameEntry) -> String {
        JSONLine.object([
            ("id", JSONLine.string(entry.id)), ("seq", String(entry.seq)),
            ("time", entry.time.map(JSONLine.string) ?? "null"),
            ("source", entry.source.map { JSONLine.string($0.rawValue) } ?? "null"),
            ("actor", entry.actor.map(JSONLine.actor) ?? "null"),
            ("change", entry.change.map(JSONLine.string) ?? "null"),
            ("name", entry.book.map { JSONLine.string($0.name) } ?? "null"),
            ("author", entry.book.map { JSONLine.string($0.author) } ?? "null"),
        ])
    }

    /// An ISO 8601 time as local `YYYY-MM-DD HH:MM:SS` (the text itself when unreadable).
    static func localTime(_ text: String?) -> String {
        guard let text, let date = ISO8601.parse(text) else { return text ?? "-" }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return text }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

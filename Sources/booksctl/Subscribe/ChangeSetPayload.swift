import BooksClient
import BooksCore

/// What `subscribe --exec` hands its command for one change set (or several merged by
/// `--coalesce`): a JSON object on stdin and `BOOKS_*` environment variables.
///
/// stdin: `{"epoch":…,"seq":N,"firstSeq":M,"time":…,"sets":K,"changes":[…]}` where each element of
/// `changes` is exactly a `subscribe --json` line, in order. Pure: built from formatted lines.
struct ChangeSetPayload: Sendable, Equatable {
    /// The last change set's position (`seq`, `epoch`, `time`).
    var cursor: Cursor
    /// The first merged change set's seq.
    var firstSeq: UInt64
    /// How many change sets were merged (1 without `--coalesce`; a gap marker alone counts 0).
    var sets = 1
    /// The `subscribe --json` lines, in order.
    var lines: [String] = []
    var inserted = 0
    var updated = 0
    var deleted = 0
    /// Whether a gap marker (`"kind":"resync"`) is among the lines.
    var resync = false
    /// Whether this is the `--initial` snapshot.
    var initial = false
    /// The changed ids, in order (each once).
    var ids: [String] = []
    /// The single changed book's kind, id, name and author, when exactly one book changed.
    var single: (kind: String, book: Book)?

    static func == (a: ChangeSetPayload, b: ChangeSetPayload) -> Bool {
        a.cursor == b.cursor && a.firstSeq == b.firstSeq && a.sets == b.sets && a.lines == b.lines
            && a.ids == b.ids && a.single?.kind == b.single?.kind && a.single?.book == b.single?.book
    }

    /// The payload of one update (its `--json` lines from `formatter`).
    init(_ update: MirrorUpdate, formatter: ChangeLineFormatter) {
        cursor = Cursor(epoch: update.epoch, seq: update.seq, time: update.time.map(ISO8601.format))
        firstSeq = update.seq
        formatter.forEachLine(for: update) { lines.append($0) }
        let changes = update.changes
        inserted = changes.inserted.count
        updated = changes.updated.count
        deleted = changes.deleted.count
        resync = update.origin == .resyncRequired
        sets = resync ? 0 : 1
        initial = update.origin == .snapshot
        var seen = Set<String>()
        for id in changes.inserted.map(\.id) + changes.updated.map(\.new.id) + changes.deleted.map(\.id)
        where seen.insert(id).inserted {
            ids.append(id)
        }
        if inserted + updated + deleted == 1 {
            if let book = changes.inserted.first { single = ("insert", book) }
            if let change = changes.updated.first { single = ("update", change.new) }
            if let book = changes.deleted.first { single = ("delete", book) }
        }
    }

    /// Appends `later` (a burst merged by `--coalesce`): its lines after these, its position last.
    mutating func merge(_ later: ChangeSetPayload) {
        cursor = later.cursor
        sets += later.sets
        lines += later.lines
        inserted += later.inserted
        updated += later.updated
        deleted += later.deleted
        resync = resync || later.resync
        initial = initial && later.initial
        var seen = Set(ids)
        for id in later.ids where seen.insert(id).inserted { ids.append(id) }
        single = nil
    }

    /// The JSON object written to the command's stdin (one line).
    var json: String {
        "{" + cursor.jsonPairs.map { JSONLine.string($0.0) + ":" + $0.1 }.joined(separator: ",")
            + ",\"seq\":\(cursor.seq),\"firstSeq\":\(firstSeq),\"sets\":\(sets),\"changes\":["
            + lines.joined(separator: ",") + "]}\n"
    }

    /// The `BOOKS_*` variables, within `ExecEnvironment`'s limits (values without NUL bytes,
    /// which an environment cannot hold): `BOOKS_TRUNCATED` is `1` when a value was shortened or
    /// ids were left out of `BOOKS_IDS` (stdin always has the whole change).
    var environment: [(String, String)] {
        var limits = ExecEnvironment()
        var vars: [(String, String)] = [
            ("BOOKS_EPOCH", cursor.epoch), ("BOOKS_SEQ", String(cursor.seq)), ("BOOKS_FIRST_SEQ", String(firstSeq)),
            ("BOOKS_CURSOR", cursor.text), ("BOOKS_TIME", cursor.time ?? ""), ("BOOKS_SETS", String(sets)),
            ("BOOKS_CHANGES", String(inserted + updated + deleted)), ("BOOKS_INSERTED", String(inserted)),
            ("BOOKS_UPDATED", String(updated)), ("BOOKS_DELETED", String(deleted)),
            ("BOOKS_RESYNC", resync ? "1" : "0"), ("BOOKS_INITIAL", initial ? "1" : "0"),
        ]
        if let single {
            vars += [
                ("BOOKS_KIND", single.kind), ("BOOKS_ID", single.book.id), ("BOOKS_NAME", single.book.name),
                ("BOOKS_AUTHOR", single.book.author),
            ]
        }
        vars = vars.map { ($0.0, limits.value($0.1)) }
        vars.append(("BOOKS_IDS", limits.ids(ids)))
        vars.append(("BOOKS_TRUNCATED", limits.truncated ? "1" : "0"))
        return vars
    }
}

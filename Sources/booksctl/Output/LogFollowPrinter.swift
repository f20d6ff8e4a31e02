import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials

/// `log --follow`'s output for each change set it follows: the line `log` prints (with `-p`, each
/// book's change below it), or with `--json` the object `log --json` prints. Change sets are
/// chosen as `log` chooses them (``HistorySelection``: touching `--id`, a book before or after
/// matching `--name`/`--author`) and printed whole; a gap marker (no books) prints nothing.
struct LogFollowPrinter: Sendable {
    var format: LogLineFormat
    var json: Bool
    var store: String?
    var printer: HistoryPrinter

    /// The lines for `update`, each passed to `add`.
    func forEachLine(for update: MirrorUpdate, _ add: (String) -> Void) {
        guard let change = event(update) else { return }
        if json {
            add(printer.json(change, store: store))
            return
        }
        add(printer.line(change))
        if format.patch { printer.patch(change).forEach(add) }
    }

    /// The update as the change event `log` prints; nil when `log` would leave it out.
    func event(_ update: MirrorUpdate) -> Event? {
        let changes = update.changes
        guard !changes.isEmpty, format.selection.matches(changes) else { return nil }
        return Event(
            event: .change, epoch: update.epoch, seq: update.seq, source: update.source,
            time: update.time.map(ISO8601.format), inserted: changes.inserted, updated: changes.updated,
            deleted: changes.deleted, actor: update.actor)
    }
}

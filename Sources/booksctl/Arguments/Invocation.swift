import BooksCore
import BooksProtocol

/// A parsed, validated command line.
struct Invocation: Equatable {
    /// `--socket PATH`, if given.
    var socket: String?
    var command: Command
    /// `--store NAME` / `-s NAME`, in the order given (several only for `subscribe`).
    var stores: [String] = []
}

/// `subscribe` options.
struct SubscribeOptions: Equatable {
    var json = false
    var name: String?
    var author: String?
    var initial = false
    /// Keep a mirror of the matching books, to print missed changes exactly after a resync.
    var mirror = false
    /// `--since EPOCH:SEQ` (a cursor), or `SEQ|TIME` with `--nats`: where in the stream to start.
    var since: String?
    /// `--cursor-file PATH`: resume from the cursor saved there and save each one printed.
    var cursorFile: String?
    /// `--exec CMD [ARGS…]`: run per change set instead of printing.
    var exec: [String]?
    /// `--coalesce MS`: merge the change sets of a burst into one `--exec` run (0: never).
    var coalesce = 0
    /// `--count N` / `--once`: exit after N change sets.
    var count: Int?
    /// Set by `log --follow` (no option of `subscribe`): each change set printed as `log` prints it.
    var logFormat: LogLineFormat?
    /// `--conflicts`: also print the conflicts of merged saves as they are recorded and settled.
    var conflicts = false

    /// The daemon-side filter: case-insensitive "contains" on each given field.
    var filter: BookFilter { Filters.contains(name: name, author: author) }
}

/// How `log --follow` prints what it follows: `log`'s line (with `-p`, each book's change) or
/// `log --json`'s object per change set, the change sets `selection` matches (`--id`, `--name`,
/// `--author` as `log` applies them).
struct LogLineFormat: Equatable {
    var patch = false
    var selection = HistorySelection()
}

/// `list` options.
struct ListOptions: Equatable {
    var json = false
    /// One JSON array instead of JSON lines.
    var jsonArray = false
    var name: String?
    var author: String?
    var sort: BookSort?
    var limit: Int?
    var offset = 0
    /// `-l/--full`: never cut the table to the terminal's width.
    var full = false
    /// `--at WHEN`: the list as it was then.
    var at: HistoryPoint?

    /// The query sent to the daemon.
    var query: BookQuery {
        BookQuery(filter: Filters.contains(name: name, author: author), sort: sort, limit: limit, offset: offset)
    }
}

/// `log` options.
struct LogOptions: Equatable {
    var json = false
    var name: String?
    var author: String?
    var since: HistoryPoint?
    var until: HistoryPoint?
    /// `-n N`: the newest N.
    var count: Int?
    var id: String?
    var patch = false
    var follow = false

    /// The daemon-side filter: case-insensitive "contains" on each given field.
    var filter: BookFilter { Filters.contains(name: name, author: author) }
}

/// `update` options (at least one of `name`, `author`).
struct UpdateOptions: Equatable {
    var id: String
    var name: String?
    var author: String?
    var expectVersion: UInt64?
    var json = false
}

/// Builds the `--name`/`--author` filters.
enum Filters {
    static func contains(name: String?, author: String?) -> BookFilter {
        var conditions: [BookCondition] = []
        if let name { conditions.append(BookCondition(.name, .containsIgnoringCase, name)) }
        if let author { conditions.append(BookCondition(.author, .containsIgnoringCase, author)) }
        return BookFilter(conditions)
    }
}

/// The grammar and help of every subcommand.
enum CommandCatalog {
    static let json = OptionSpec.flag("json", short: "j", "print JSON instead of text")
    static let name = OptionSpec.value("name", "TEXT", "only books whose name contains TEXT (ignoring case)")
    static let author = OptionSpec.value("author", "TEXT", "only books whose author contains TEXT (ignoring case)")

    static let subscribe = CommandSpec(
        name: "subscribe", summary: "print every change of the books as it happens",
        positionals: [],
        options: [
            json, name, author,
            .flag("initial", "first print every matching book as an insert (seq of the snapshot); implies --mirror"),
            .flag("mirror", "keep a copy of the matching books, to print missed changes exactly after a resync"),
            .value("since", "SEQ|TIME", "with --nats: start at stream sequence SEQ or at an ISO 8601 TIME"),
        ],
        details: [
            """
            Follows the daemon's change feed until interrupted (Ctrl-C or SIGTERM: exit 0). If the daemon stops, \
            restarts or crashes, booksctl reconnects (100 ms back-off doubling to 2 s) and resumes where it left off: \
            changes made meanwhile are printed once, none is printed twice. booksctl holds no copy of the books: \
            its memory does not grow with the file. When the daemon cannot replay the missed changes (its history \
            was trimmed, or it lost it), one resync line marks the gap. With --mirror (or --initial) booksctl keeps \
            a copy of the matching books instead, and prints the missed changes, computed from a fresh snapshot, \
            with the snapshot's seq.
            """,
            """
            Text output: one line per changed book, coloured when stdout is a terminal and NO_COLOR is unset. \
            Connection notices go to stderr.
            """,
            """
            --json output: exactly one JSON object per changed book per line, written as each change arrives:
              {"seq":N,"kind":"insert"|"update"|"delete",\
            "id":"…","name":"…","author":"…","source":"file"|"client"}
            A delete carries the last known name and author; an update the new values, followed by "oldName" and \
            "oldAuthor". "source" is "resync" for changes computed from a snapshot after a reconnect and "snapshot" \
            for --initial lines. Without --mirror, a gap is one line
              {"seq":N,"kind":"resync","epoch":"…","reason":"history-trimmed"|"different-epoch"|…,"source":"resync"}
            after which changes continue from seq N.
            """,
            """
            Stores: with a daemon serving several stores, subscribe without --store follows every store (also \
            those added later); --store NAME, given once or several times, follows those. Each text line then \
            starts with "STORE: " and each JSON line ends with "store":"NAME"; seq numbers are per store, and \
            booksctl resumes each store from its own point. Stores added, removed or not followed are reported on \
            stderr. With --store given once (or a daemon with one store), lines are as above.
            """,
        ],
        examples: [
            ("booksctl subscribe", "follow every change"),
            ("booksctl subscribe --json --author tolkien", "JSON lines for books by authors matching 'tolkien'"),
            ("booksctl subscribe --initial --json | jq .id", "all current books, then changes"),
            ("booksctl subscribe -s fiction -s to-read", "follow two stores, each line naming its store"),
        ])

    static let list = CommandSpec(
        name: "list", summary: "list books (filter, sort, page)",
        positionals: [],
        options: [
            json, name, author,
            .value("sort", "FIELD", "order by id, name or author; -FIELD for descending (default: file order)"),
            .value("limit", "N", "print at most N books"),
            .value("offset", "N", "skip the first N matching books"),
            .flag("json-array", "print one JSON array instead of JSON lines"),
        ],
        details: [
            """
            On a terminal: an aligned table with a header and a count. In a pipe: one book per line, id, name and \
            author separated by tabs, no header, no colour (tabs, newlines and backslashes in values are written as \
            \\t, \\n and \\\\).
            """,
            """
            --json prints one {"id","name","author"} object per line; --json-array one JSON array of them. Books are \
            printed as the daemon's pages arrive (a terminal table is aligned page by page).
            """,
        ],
        examples: [
            ("booksctl list", "every book"),
            ("booksctl list --author austen --sort name", "books by Austen, by title"),
            ("booksctl list --sort -name --limit 10 --offset 20", "third page of ten, titles Z→A"),
        ])

    static let get = CommandSpec(
        name: "get", summary: "print one book and its version",
        positionals: [("ID", "the book's id")],
        options: [json],
        details: [
            """
            Prints the book's id, name, author and version (the seq of the change that last touched it; use it with \
            --expect-version). --json prints {"id","name","author","version"}.
            """
        ],
        examples: [("booksctl get 3F2504E0-4F89-11D3-9A0C-0305E82C3301", "show a book")],
        exitNotes: ["5  no book has this id"])

    static let add = CommandSpec(
        name: "add", summary: "add a book; prints its new id",
        positionals: [("NAME", "the title"), ("AUTHOR", "the author")],
        options: [],
        details: [
            """
            Asks the daemon to append the book to the file; prints the id it assigned, nothing else. Use -- before a \
            NAME that starts with '-'.
            """
        ],
        examples: [
            ("booksctl add 'Dune' 'Frank Herbert'", "prints the new id"),
            ("id=$(booksctl add -- '-1 Below' 'Someone')", "a title starting with '-'"),
        ],
        exitNotes: ["4  the daemon does not let you write"])

    static let update = CommandSpec(
        name: "update", summary: "change a book's name and/or author",
        positionals: [("ID", "the book's id")],
        options: [
            .value("name", "NAME", "the new title"),
            .value("author", "AUTHOR", "the new author"),
            .value("expect-version", "V", "only if the book's version is still V (see `get`)"),
        ],
        details: [
            """
            At least one of --name and --author is required. With --expect-version, the update fails with exit code \
            6 if someone changed the book since you read version V; the current values are printed.
            """
        ],
        examples: [
            ("booksctl update $id --author 'J. R. R. Tolkien'", "fix an author"),
            ("booksctl update $id --name 'Emma' --expect-version 42", "only if unchanged since version 42"),
        ],
        exitNotes: ["5  no book has this id", "6  conflict: the book changed (current values printed)"])

    static let delete = CommandSpec(
        name: "delete", summary: "delete a book",
        positionals: [("ID", "the book's id")],
        options: [.value("expect-version", "V", "only if the book's version is still V (see `get`)")],
        details: ["Removes the book's row from the file."],
        examples: [
            ("booksctl delete $id", "delete a book"),
            ("booksctl delete $id --expect-version 42", "only if unchanged since version 42"),
        ],
        exitNotes: ["5  no book has this id", "6  conflict: the book changed (current values printed)"])

    static let status = CommandSpec(
        name: "status", summary: "show the daemon's state",
        positionals: [],
        options: [json],
        details: [
            """
            Prints the book file and its state, the number of books, bad lines (with line numbers and reasons), \
            books held at their last good values, the watcher mode, epoch and seq, subscribers, clients and uptime. \
            --json prints the daemon's status object.
            """,
            """
            With a daemon serving several stores and no --store: the status of each store, one after another \
            (--json: one object mapping each store's name to its status object).
            """,
        ],
        examples: [
            ("booksctl status", "human summary"), ("booksctl status --json | jq .badLines", "bad lines as JSON"),
        ])

    static let ping = CommandSpec(
        name: "ping", summary: "check that the daemon answers",
        positionals: [], options: [],
        details: ["Connects, says hello and pings; prints the server, its position and the round-trip time."],
        examples: [("booksctl ping && echo up", "use in scripts")])

    static let stores = CommandSpec(
        name: "stores", summary: "list the daemon's stores (named book files)",
        positionals: [], options: [json],
        details: [
            """
            One line per store: its name, state (present, missing, unavailable — with why — or confirming), \
            number of books, bad lines, seq, format and path. --json prints one object per store per line: \
            {"name","path","format","state"[,"problem"],"bookCount","badLines","epoch","seq"}.
            """,
            """
            Every command takes --store NAME (-s NAME, or the BOOKS_STORE environment variable) to work on one \
            store. With a daemon serving one store it may be omitted; with several, a command that needs one \
            store and names none fails with exit code 2 and lists the stores.
            """,
        ],
        examples: [
            ("booksctl stores", "the stores"), ("booksctl -s fiction list", "the books of the store fiction"),
            ("BOOKS_STORE=to-read booksctl add 'Emma' 'Jane Austen'", "add to the store to-read"),
        ])

    static let help = CommandSpec(
        name: "help", summary: "show help for booksctl or a command",
        positionals: [], options: [],
        details: ["`booksctl help CMD` is the same as `booksctl CMD --help`."],
        examples: [("booksctl help subscribe", "help for subscribe")])

    /// Every subcommand, in help order.
    static let all: [CommandSpec] = [subscribe, list, get, add, update, delete, status, ping, stores, help]

    /// The subcommand named `name`.
    static func spec(named name: String) -> CommandSpec? { all.first { $0.name == name } }
}

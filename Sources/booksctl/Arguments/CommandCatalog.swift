import BooksProtocol

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
            .value(
                "since", "WHEN",
                "resume after this cursor (of a --json line); a plain SEQ: after that seq of the current epoch "
                    + "(0: every change still available); or a time: -10m, -2h, -3d, today, "
                    + "yesterday or ISO 8601 (from the first change set at or after it)"),
            .value("cursor-file", "PATH", "resume after the cursor saved in PATH; save each printed change's cursor"),
            .value("count", "N", "exit after N change sets"),
            .flag("once", "exit after one change set (--count 1)"),
            .value("coalesce", "MS", "with --exec: merge the change sets arriving within MS ms into one run"),
            .flag(
                "conflicts",
                "also print a line for each conflict of a merged save as it is recorded and as it is settled "
                    + "(one store; not with --exec)"),
            .rest("exec", "CMD [ARGS…]", "run CMD per change set instead of printing (must come last)"),
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
            "id":"…","name":"…","author":"…","source":"file"|"client"|"nats"}
            A delete carries the last known name and author; an update the new values, followed by "oldName" and \
            "oldAuthor". "source" is "resync" for changes computed from a snapshot after a reconnect and "snapshot" \
            for --initial lines. Without --mirror, a gap is one line
              {"seq":N,"kind":"resync","epoch":"…","reason":"history-trimmed"|"different-epoch"|…,"source":"resync"}
            after which changes continue from seq N.
            """,
            """
            Cursors: every --json line also carries "epoch" and "time" (ISO 8601, when the daemon applied the \
            change; booksctl's clock for resync and snapshot lines), and "actor" when the daemon said who made \
            the change: {"uid","user","pid","program"} for a client (from the kernel, not the client's word), \
            what a NATS client declared about itself for a NATS write, marked "via":"nats" \
            ({"uid","user","pid","program","host","via":"nats","natsUser"}; {"program":"nats"} when it said \
            nothing), {"uid","user","editor":"unknown"} (the file's owner) or the \
            editor's {"user","host","pid","editor"} for a hand edit. --since EPOCH:SEQ (socket) resumes after that \
            change: the daemon replays what came later; a plain SEQ means that seq of the daemon's current epoch. \
            A time (-10m, today, 2026-12-01T08:30) resumes before the first change set applied at or after it \
            (socket: from the daemon's history kept; --nats: from the stream). --cursor-file PATH does the same with the cursor saved in \
            PATH (none yet: start now) and rewrites PATH atomically (temporary file + rename) after each printed \
            change set, or after each --exec run, so a restarted booksctl goes on where it stopped. A stale \
            cursor (a new epoch, or history trimmed) resyncs: one "kind":"resync" line, then the changes from the \
            daemon's position. Neither works with --mirror or --initial.
            """,
            """
            --exec CMD [ARGS…] runs CMD once per change set, one run at a time, in order, instead of printing. \
            Its stdin is one JSON object {"epoch","time","seq","firstSeq","sets","changes":[--json lines]}; its \
            environment has BOOKS_EPOCH, BOOKS_SEQ, BOOKS_FIRST_SEQ, BOOKS_CURSOR, BOOKS_TIME, BOOKS_SETS, \
            BOOKS_CHANGES, BOOKS_INSERTED, BOOKS_UPDATED, BOOKS_DELETED, BOOKS_RESYNC, BOOKS_INITIAL, BOOKS_IDS \
            (newline-separated, at most 1000 ids in 64 KiB) and, when one book changed, BOOKS_KIND, BOOKS_ID, \
            BOOKS_NAME, BOOKS_AUTHOR; a value over 16 KiB is cut, ending with …[truncated], and BOOKS_TRUNCATED=1 \
            says something was cut or left out (stdin has it all). A failing CMD is logged on stderr and never \
            stops the feed; a CMD that cannot be started is retried 3 times (0.1, 0.5, 2 s), then booksctl exits \
            1 without moving --cursor-file past that change set. --coalesce MS waits MS ms \
            after a change set and merges everything that arrived meanwhile (or while CMD ran) into one run. \
            --initial runs CMD once at start with every matching book as an insert (BOOKS_INITIAL=1, also when \
            none matches). \
            --count N / --once exit 0 after N change sets (after their runs, with --exec).
            """,
            """
            Stores: with a daemon serving several stores, subscribe without --store follows every store (also \
            those added later); --store NAME, given once or several times, follows those. Each text line then \
            starts with "STORE: " and each JSON line ends with "store":"NAME"; seq numbers are per store, and \
            booksctl resumes each store from its own point. Stores added, removed or not followed are reported on \
            stderr; a store that appears (a file created in or moved into the watched folder) starts empty, so its \
            books are printed as inserts (its seq 1), as a store that goes prints its books as deletes, with or \
            without --mirror. With --store given once (or a daemon with one store), text lines are as above and JSON lines \
            end with that store's "store" (none from a daemon of protocol version 1).
            """,
            """
            Over NATS (--nats URL): the store's JetStream stream, with the same options, meanings, lines ("store" \
            included) and exit codes as over the socket: --since counts booksd's seqs, not stream sequences, and \
            resumes after them; a gap in the stream prints the same resync line; --initial and --mirror start from \
            the store's key-value bucket (--initial prints its books ordered by id); --since TIME (ISO 8601, the \
            first change stored at or after it) works over NATS only. See docs/SCALE-OUT.md.
            """,
        ],
        examples: [
            ("booksctl subscribe", "follow every change"),
            ("booksctl subscribe --json --author tolkien", "JSON lines for books by authors matching 'tolkien'"),
            ("booksctl subscribe --initial --json | jq .id", "all current books, then changes"),
            ("booksctl subscribe --json --cursor-file ~/.cache/books.cursor", "resume where the last run stopped"),
            ("booksctl subscribe --coalesce 500 --exec make site", "rebuild on change, bursts merged"),
            ("booksctl subscribe --once --json", "wait for the next change set, print it, exit"),
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
            .flag("full", short: "l", "on a terminal, show whole values instead of fitting the table to its width"),
            .value("at", "WHEN", "the list as it was at WHEN (a seq, or a time: \(HistoryPoint.forms))"),
        ],
        details: [
            """
            On a terminal: an aligned table with a header and a count. In a pipe: one book per line, id, name and \
            author separated by tabs, no header, no colour (tabs, newlines and backslashes in values are written as \
            \\t, \\n and \\\\).
            """,
            """
            --json prints one {"id","name","author"} object per line; --json-array one JSON array of them. Books are \
            printed as the daemon's pages arrive. A terminal table's columns are measured on the first page and \
            kept, so they never drift; a longer value on a later page is cut with "…" (with -l/--full it is shown \
            whole, widening only its row).
            """,
            """
            The table's columns are padded by display width (wide East Asian characters and emoji count two \
            columns, combining marks none) and cut to the terminal's width with "…" (COLUMNS, else the terminal's \
            size); -l/--full shows everything.
            """,
        ],
        examples: [
            ("booksctl list", "every book"),
            ("booksctl list --author austen --sort name", "books by Austen, by title"),
            ("booksctl list --sort -name --limit 10 --offset 20", "third page of ten, titles Z→A"),
        ])

    static let get = CommandSpec(
        name: "get", summary: "print books and their versions",
        positionals: [("ID…", "one or more ids, each in full or a unique prefix")],
        options: [json],
        details: [
            """
            Prints the book's id, name, author and version (the seq of the change that last touched it; use it with \
            --expect-version). --json prints {"id","name","author","version"}.
            """,
            """
            Every ID may be a unique prefix of an id (like git's short hashes); an ambiguous prefix lists the \
            candidates and exits 2. When no id starts with ID as typed, case is ignored (35bf names 35BF…, \
            when unambiguous). Several ids print one block (or JSON line) per book, in the order given.
            """,
        ],
        examples: [("booksctl get 3F2504E0-4F89-11D3-9A0C-0305E82C3301", "show a book")],
        exitNotes: ["5  no book has this id"])

    static let add = CommandSpec(
        name: "add", summary: "add a book; prints its new id",
        positionals: [("NAME", "the title"), ("AUTHOR", "the author")],
        options: [.flag("json", short: "j", "print the new book as JSON (with its id and version)")],
        details: [
            """
            Asks the daemon to append the book to the file; prints the id it assigned, nothing else. Use -- before a \
            NAME that starts with '-'.
            """,
            """
            `add -` reads books from stdin, one per line: NAME<TAB>AUTHOR, or a JSON object {"name","author"} \
            (optionally "id"); blank lines are skipped. All of them are added in one atomic write (the protocol's \
            insert of many books): all or none. A malformed line is a usage error naming its line number (exit 2), \
            nothing is written. Empty names and authors are allowed (docs/FORMAT.md). --json prints \
            {"id","name","author","version"} per book. One request holds at most the daemon's max_request_bytes \
            (default 1 MiB, roughly 10,000 books): split larger imports.
            """,
        ],
        examples: [
            ("booksctl add 'Dune' 'Frank Herbert'", "prints the new id"),
            ("id=$(booksctl add -- '-1 Below' 'Someone')", "a title starting with '-'"),
            ("printf 'Dune\\tFrank Herbert\\n' | booksctl add -", "bulk import from tab-separated lines"),
        ],
        exitNotes: ["4  the daemon does not let you write"])

    static let update = CommandSpec(
        name: "update", summary: "change a book's name and/or author",
        positionals: [("ID", "the book's id")],
        options: [
            .value("name", "NAME", "the new title"),
            .value("author", "AUTHOR", "the new author"),
            .value("expect-version", "V", "only if the book's version is still V (see `get`)"),
            .flag("json", short: "j", "print the updated book as JSON (with its version)"),
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
        name: "delete", summary: "delete books",
        positionals: [("ID…", "one or more ids, each in full or a unique prefix")],
        options: [
            .value("expect-version", "V", "only if the book's version is still V (see `get`)"),
            .flag("json", short: "j", "print each deleted book as JSON"),
        ],
        details: [
            "Removes the books' rows from the file, all in one atomic write. --expect-version takes one ID only."
        ],
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
            Bad lines are also printed as FILE:LINE: MESSAGE, the form editors jump to. In --json each bad line is \
            {"line","code","message","text"} (docs/PROTOCOL.md), and "/" is not escaped.
            """,
            """
            With a daemon serving several stores and no --store: the status of each store, one after another \
            (--json: one object mapping each store's name to its status object).
            """,
        ],
        examples: [
            ("booksctl status", "human summary"), ("booksctl status --json | jq .badLines", "bad lines as JSON"),
        ])

    static let check = CommandSpec(
        name: "check", summary: "validate book files offline",
        positionals: [("FILE…", "one or more book files (rows id|name|author, or a JSON array); - reads stdin")],
        options: [
            json,
            .value("format", "FORMAT", "text or json (default: json for a FILE ending in .json, else text)"),
        ],
        details: [
            """
            Reads each FILE as booksd would, without a daemon, and prints each bad line as FILE:LINE: MESSAGE \
            (--json: one {"file","line","code","message","text"} object per line). A JSON file (FILE ending in \
            .json, or --format json) that is not an array of {"id","name","author"} objects is one error, \
            FILE: MESSAGE (line 0 in --json); a bad book in it is FILE: book N: MESSAGE. - reads stdin (text \
            unless --format json), shown as <stdin>. Every FILE is checked. Exit 0 when every line is a book, a \
            new book, a comment or blank; 1 when a file has bad lines; 2 when a FILE cannot be read. For \
            pre-commit hooks: `git show :books.txt | booksctl check -` checks what is staged.
            """
        ],
        examples: [
            ("booksctl check books.txt", "exit 1 and list the bad lines if any"),
            ("booksctl check lists/*.txt lists/*.json", "several files, text and JSON"),
            ("git show :books.txt | booksctl check -", "the staged content (a pre-commit hook)"),
        ],
        exitNotes: ["1  a file has bad lines", "2  a file cannot be read"])

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
            number of books, bad lines, seq, the oldest change set of the history kept (OLDEST: its seq; \
            SINCE: its local time; - when none is kept), format and path; on a terminal, cut to its width \
            with "…" like list's table. --json prints one object per store per line: \
            {"name","path","format","state"[,"problem"],"bookCount","badLines","epoch","seq"\
            [,"historyOldestSeq","historyOldestTime"]} (the time in UTC, ISO 8601). With --nats, each store \
            published under the prefix is asked over NATS (one no booksd answers for is unavailable).
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
    static let all: [CommandSpec] = [
        subscribe, list, get, add, update, delete, status, ping, stores, conflicts, resolve, check, completion, help,
        log, show, blame, undo, edit,
    ]

    /// The subcommand named `name`.
    static func spec(named name: String) -> CommandSpec? { all.first { $0.name == name } }
}

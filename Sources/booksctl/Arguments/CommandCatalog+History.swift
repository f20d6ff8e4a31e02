import BooksProtocol

/// The grammar and help of `log`, `show`, `blame` and `undo`: the history the daemon keeps.
extension CommandCatalog {
    static let whenHelp = "WHEN is \(HistoryPoint.forms)"

    static let log = CommandSpec(
        name: "log", summary: "show the change sets kept, newest last (who changed what, when)",
        positionals: [],
        options: [
            json, name, author,
            .value("since", "WHEN", "only change sets after WHEN (a seq: after it; a time: at or after it)"),
            .value("until", "WHEN", "only change sets up to WHEN (inclusive)"),
            .value("max-count", "N", short: "n", "only the newest N change sets"),
            .value("id", "ID", "only change sets that touched book ID"),
            .flag("patch", short: "p", "print each book's change under its change set"),
            .flag(
                "follow", short: "f",
                "after the history, go on printing new change sets as they come, in the same format"),
        ],
        details: [
            """
            One line per change set, oldest first: its seq, the local time it was applied, its source (file: a \
            hand edit; client: a socket write; nats: a write over NATS; undo: booksctl undo), who made it (the \
            client's user, program and pid; for a NATS write what the writer declared about itself, e.g. \
            "alice booksctl[4242]@web1 via nats"; for a hand edit the editor's user, pid and host from its swap or \
            lock file, else the file's owner), how many books were inserted (+), updated (~) and deleted (-), and the \
            first book's title.
            """,
            """
            \(whenHelp). Relative times count back from now; dates and times without an offset are local. \
            --name/--author keep the change sets in which a book (before or after the change) matches. The daemon \
            keeps the change sets within its retention (booksctl status shows the oldest kept); older ones are not \
            shown.
            """,
            """
            --json prints one object per change set and line: {"seq","epoch","time","source","actor","changes"}, \
            "changes" holding the subscribe --json objects of its books (with "kind" insert, update or delete).
            """,
            """
            --follow goes on live (until interrupted) with the change sets --id, --name and --author choose, each \
            printed as above (a line, -p's books, or a --json object), over the socket or --nats alike; it resumes \
            after the last change set printed, so none is missed or printed twice.
            """,
        ],
        examples: [
            ("booksctl log -n 20", "the last twenty change sets"),
            ("booksctl log --since -2h -p", "what changed in the last two hours, book by book"),
            ("booksctl log --id 9f2c", "every change of book 9f2c…"),
            ("booksctl log --since yesterday --until today --json", "yesterday's change sets as JSON"),
        ])

    static let show = CommandSpec(
        name: "show", summary: "show one change set in full",
        positionals: [("SEQ", "the change set's seq (as log prints it)")],
        options: [json],
        details: [
            "The change set's line as log prints it, then each book's change (log -p). Exit 5 when it is not kept."
        ],
        examples: [("booksctl show 42", "change set 42, book by book")],
        exitNotes: ["5  no change set SEQ is kept"])

    static let blame = CommandSpec(
        name: "blame", summary: "each book's last change: seq, time and who",
        positionals: [("ID…", "books, each a full id or a unique prefix (none: every book a kept change set touched)")],
        options: [json],
        details: [
            """
            One line per book: its id, the seq of its last change, the time, the source and who made it, and what \
            the change did. A book whose last change is older than the history kept shows only its version. \
            --json prints {"id","seq","time","source","actor","change","name","author"} per line.
            """
        ],
        examples: [
            ("booksctl blame 9f2c", "who last changed book 9f2c…"),
            ("booksctl blame --json | jq 'select(.change==\"deleted\")'", "the books deleted, and by whom"),
        ])

    static let undo = CommandSpec(
        name: "undo", summary: "undo change sets (one new change set with source undo)",
        positionals: [("SEQ…", "the seqs of the change sets to undo together")],
        options: [
            json, .flag("force", "also take back books changed again since"),
        ],
        details: [
            """
            Every book the change sets touched goes back to its state before the oldest of them: an inserted \
            book is deleted, an updated one gets its old values, a deleted one comes back with its id. All in one \
            atomic, conflict-checked write: a new change set with source undo, seen by every subscriber. A book \
            changed again since by a change set not undone is left alone and reported (exit 6 when nothing was \
            left to undo), unless --force.
            """
        ],
        examples: [
            ("booksctl undo 42", "undo change set 42"),
            ("booksctl undo 40 41 42", "undo three change sets in one write"),
        ],
        exitNotes: ["5  a SEQ is not in the history kept", "6  every book was changed again since (use --force)"])
}

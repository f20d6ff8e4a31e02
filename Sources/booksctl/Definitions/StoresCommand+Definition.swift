import BooksClient

/// `stores` as a type: its grammar and help, how it is read from the command line, how it runs.
extension StoresCommand: JSONOnlyCommand {
    static let spec = CommandSpec(
        name: "stores", summary: "list the daemon's stores (named book files)",
        positionals: [], options: [.json],
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
}

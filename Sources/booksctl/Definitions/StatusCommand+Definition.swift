import BooksClient

/// `status` as a type: its grammar and help, how it is read from the command line, how it runs.
extension StatusCommand: JSONOnlyCommand {
    static let spec = CommandSpec(
        name: "status", summary: "show the daemon's state",
        positionals: [],
        options: [.json],
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
}

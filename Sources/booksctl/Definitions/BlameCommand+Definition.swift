import BooksClient

/// `blame [ID…]`: each book's last change.
struct BlameCommand: Equatable {
    var ids: [String]
    var json: Bool
}

extension BlameCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "blame", summary: "each book's last change: seq, time and who",
        positionals: [("ID…", "books, each a full id or a unique prefix (none: every book a kept change set touched)")],
        options: [.json],
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

    init(parsing args: ScannedArguments) throws(UsageError) {
        self.init(ids: try args.nonEmptyPositionals("ID", required: false), json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await HistoryCommand.blame(ids, json: json, context)
    }
}

import BooksClient
import BooksProtocol

/// `log`: the change sets kept.
struct LogCommand: Equatable {
    var options: LogOptions
}

extension LogCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "log", summary: "show the change sets kept, newest last (who changed what, when)",
        positionals: [],
        options: [
            .json, .name, .author,
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

    /// What a WHEN may be, for the help texts of the history commands.
    static let whenHelp = "WHEN is \(HistoryPoint.forms)"

    init(parsing args: ScannedArguments) throws(UsageError) {
        if let unexpected = args.positionals.first { throw args.fail("unexpected argument '\(unexpected)'") }
        var options = LogOptions(json: args.flag("json"), name: args.values["name"], author: args.values["author"])
        options.since = try args.values["since"].map { text throws(UsageError) in try args.when(text, "--since") }
        options.until = try args.values["until"].map { text throws(UsageError) in try args.when(text, "--until") }
        if let text = args.values["max-count"] {
            guard let value = Int(text), value > 0 else { throw args.fail("-n needs a positive number, not '\(text)'") }
            options.count = value
        }
        if let id = args.values["id"] {
            guard !id.isEmpty else { throw args.fail("--id needs a book id") }
            options.id = id
        }
        options.patch = args.flag("patch")
        options.follow = args.flag("follow")
        self.init(options: options)
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await HistoryCommand.log(options, context, subscribe: subscribe)
    }
}

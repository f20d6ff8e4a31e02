import BooksClient
import BooksProtocol

/// `list` as a type: its grammar and help, how it is read from the command line, how it runs.
extension ListCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "list", summary: "list books (filter, sort, page)",
        positionals: [],
        options: [
            .json, .name, .author,
            .value("sort", "FIELD", "order by id, name or author; -FIELD for descending (default: file order)")
                .completing(.choices(["id", "name", "author", "-id", "-name", "-author"])),
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

    init(parsing args: ScannedArguments) throws(UsageError) {
        _ = try args.fixedPositionals(Self.spec)
        let array = args.flag("json-array")
        var options = ListOptions(
            json: args.flag("json") || array, jsonArray: array, name: args.values["name"],
            author: args.values["author"])
        options.full = args.flag("full")
        if let text = args.values["sort"] {
            guard let sort = BookSort(parsing: text) else {
                throw args.fail("invalid --sort '\(text)' (expected id, name or author, optionally prefixed by -)")
            }
            options.sort = sort
        }
        if let text = args.values["limit"] { options.limit = try args.count(text, "--limit") }
        if let text = args.values["offset"] { options.offset = try args.count(text, "--offset") }
        options.at = try args.values["at"].map { text throws(UsageError) in try args.when(text, "--at") }
        self.init(options: options)
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(options, context)
    }
}

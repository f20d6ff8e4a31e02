import BooksClient

/// `add` (and `add -`) as a type: its grammar and help, how it is read from the command line, how it runs.
extension AddCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "add", summary: "add a book; prints its new id",
        positionals: [("NAME", "the title"), ("AUTHOR", "the author")],
        options: [.json("print the new book as JSON (with its id and version)")],
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

    init(parsing args: ScannedArguments) throws(UsageError) {
        if args.positionals == ["-"] {
            self.init(source: .standardInput, json: args.flag("json"))
            return
        }
        let p = try args.fixedPositionals(Self.spec)
        self.init(source: .arguments(name: p[0], author: p[1]), json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        switch source {
        case .arguments(let name, let author): try await Self.run(name: name, author: author, json: json, context)
        case .standardInput: try await Self.runFromInput(json: json, context)
        }
    }
}

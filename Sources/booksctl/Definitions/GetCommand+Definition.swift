import BooksClient

/// `get` as a type: its grammar and help, how it is read from the command line, how it runs.
extension GetCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "get", summary: "print books and their versions",
        positionals: [CommandSpec.ids],
        options: [.json],
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
        exitNotes: [CommandSpec.noSuchBook])

    init(parsing args: ScannedArguments) throws(UsageError) {
        self.init(ids: try args.nonEmptyPositionals("ID"), json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(ids: ids, json: json, context)
    }
}

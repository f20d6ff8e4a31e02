import BooksClient

/// `update` as a type: its grammar and help, how it is read from the command line, how it runs.
extension UpdateCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "update", summary: "change a book's name and/or author",
        positionals: [("ID", "the book's id")],
        options: [
            .value("name", "NAME", "the new title"),
            .value("author", "AUTHOR", "the new author"),
            .expectVersion,
            .json("print the updated book as JSON (with its version)"),
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
        exitNotes: [CommandSpec.noSuchBook, CommandSpec.changedSince])

    init(parsing args: ScannedArguments) throws(UsageError) {
        let p = try args.fixedPositionals(Self.spec)
        let options = UpdateOptions(
            id: p[0], name: args.values["name"], author: args.values["author"],
            expectVersion: try args.expectedVersion(), json: args.flag("json"))
        guard options.name != nil || options.author != nil else {
            throw args.fail("nothing to change: give --name and/or --author")
        }
        self.init(options: options)
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(options, context)
    }
}

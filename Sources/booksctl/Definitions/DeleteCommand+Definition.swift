import BooksClient

/// `delete` as a type: its grammar and help, how it is read from the command line, how it runs.
extension DeleteCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "delete", summary: "delete books",
        positionals: [CommandSpec.ids],
        options: [
            .expectVersion,
            .json("print each deleted book as JSON"),
        ],
        details: [
            "Removes the books' rows from the file, all in one atomic write. --expect-version takes one ID only."
        ],
        examples: [
            ("booksctl delete $id", "delete a book"),
            ("booksctl delete $id --expect-version 42", "only if unchanged since version 42"),
        ],
        exitNotes: [CommandSpec.noSuchBook, CommandSpec.changedSince])

    init(parsing args: ScannedArguments) throws(UsageError) {
        let ids = try args.nonEmptyPositionals("ID")
        let expected = try args.expectedVersion()
        if expected != nil, ids.count > 1 { throw args.fail("--expect-version needs exactly one ID") }
        self.init(ids: ids, expectVersion: expected, json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(ids: ids, expectVersion: expectVersion, json: json, context)
    }
}

import BooksClient

/// `show SEQ`: one change set in full.
struct ShowCommand: Equatable {
    var seq: UInt64
    var json: Bool
}

extension ShowCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "show", summary: "show one change set in full",
        positionals: [("SEQ", "the change set's seq (as log prints it)")],
        options: [.json],
        details: [
            "The change set's line as log prints it, then each book's change (log -p). Exit 5 when it is not kept."
        ],
        examples: [("booksctl show 42", "change set 42, book by book")],
        exitNotes: ["5  no change set SEQ is kept"])

    init(parsing args: ScannedArguments) throws(UsageError) {
        let p = args.positionals
        guard p.count == 1 else { throw args.fail(p.isEmpty ? "missing argument SEQ" : "show takes one SEQ") }
        self.init(seq: try args.seq(p[0]), json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await HistoryCommand.show(seq, json: json, context)
    }
}

import BooksClient

/// `undo SEQ… [--force]`: the inverse of change sets, as one new change set.
struct UndoCommand: Equatable {
    var seqs: [UInt64]
    var force: Bool
    var json: Bool
}

extension UndoCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "undo", summary: "undo change sets (one new change set with source undo)",
        positionals: [("SEQ…", "the seqs of the change sets to undo together")],
        options: [
            .json, .flag("force", "also take back books changed again since"),
        ],
        details: [
            """
            Every book the change sets touched goes back to its state before the oldest of them: an inserted \
            book is deleted, an updated one gets its old values, a deleted one comes back with its id. All in one \
            atomic, conflict-checked write: a new change set with source undo, seen by every subscriber. A book \
            changed again since by a change set not undone is left alone and reported (exit 6 when nothing was \
            left to undo), unless --force.
            """
        ],
        examples: [
            ("booksctl undo 42", "undo change set 42"),
            ("booksctl undo 40 41 42", "undo three change sets in one write"),
        ],
        exitNotes: ["5  a SEQ is not in the history kept", "6  every book was changed again since (use --force)"])

    init(parsing args: ScannedArguments) throws(UsageError) {
        guard !args.positionals.isEmpty else { throw args.fail("missing argument SEQ") }
        var seqs: [UInt64] = []
        for text in args.positionals { seqs.append(try args.seq(text)) }
        self.init(seqs: seqs, force: args.flag("force"), json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await HistoryCommand.undo(seqs, force: force, json: json, context)
    }
}

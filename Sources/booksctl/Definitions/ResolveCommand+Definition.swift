import BooksClient
import BooksCore

/// `resolve ID --take mine|theirs`: settle a conflict (ID: its number, or a book id / prefix).
struct ResolveCommand: Equatable {
    var id: String
    var take: ConflictSide
    var json: Bool
}

extension ResolveCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "resolve", summary: "settle a conflict of a merged save",
        positionals: [("ID", "the conflict's number, or the id (or a unique prefix) of a book with one conflict")],
        options: [
            .json,
            .value(
                "take", "SIDE",
                "mine: the saver's value (in the file) stands; theirs: write the others' value into the file"
            ).completing(.choices(ConflictSide.allCases.map(\.rawValue))),
        ],
        details: [
            """
            --take theirs writes the others' value into the file like any client write (a new change set, seen by \
            every subscriber); --take mine leaves the file as it is. Either way the conflict is no longer kept. \
            An ID that names no unsettled conflict exits 5 with a message saying so; a book with several \
            conflicts needs the conflict's number.
            """
        ],
        examples: [
            ("booksctl resolve 3 --take theirs", "put the others' value back into the file"),
            ("booksctl resolve 9f2c --take mine", "keep the saver's value of book 9f2c…"),
        ],
        exitNotes: ["5  no unsettled conflict has this ID"])

    init(parsing args: ScannedArguments) throws(UsageError) {
        let p = try args.fixedPositionals(Self.spec)
        guard let text = args.values["take"] else { throw args.fail("missing --take mine|theirs") }
        guard let side = ConflictSide(rawValue: text) else {
            throw args.fail("invalid --take '\(text)' (expected mine or theirs)")
        }
        self.init(id: p[0], take: side, json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await ConflictsCommand.resolve(id, take: take, json: json, context)
    }
}

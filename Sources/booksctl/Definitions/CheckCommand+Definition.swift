import BooksClient
import BooksCore

/// `check` as a type: its grammar and help, how it is read from the command line, how it runs.
extension CheckCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "check", summary: "validate book files offline",
        positionals: [("FILE…", "one or more book files (rows id|name|author, or a JSON array); - reads stdin")],
        options: [
            .json,
            .value("format", "FORMAT", "text or json (default: json for a FILE ending in .json, else text)")
                .completing(.choices(BookFileFormat.allCases.map(\.rawValue))),
        ],
        details: [
            """
            Reads each FILE as booksd would, without a daemon, and prints each bad line as FILE:LINE: MESSAGE \
            (--json: one {"file","line","code","message","text"} object per line). A JSON file (FILE ending in \
            .json, or --format json) that is not an array of {"id","name","author"} objects is one error, \
            FILE: MESSAGE (line 0 in --json); a bad book in it is FILE: book N: MESSAGE. - reads stdin (text \
            unless --format json), shown as <stdin>. Every FILE is checked. Exit 0 when every line is a book, a \
            new book, a comment or blank; 1 when a file has bad lines; 2 when a FILE cannot be read. For \
            pre-commit hooks: `git show :books.txt | booksctl check -` checks what is staged.
            """
        ],
        examples: [
            ("booksctl check books.txt", "exit 1 and list the bad lines if any"),
            ("booksctl check lists/*.txt lists/*.json", "several files, text and JSON"),
            ("git show :books.txt | booksctl check -", "the staged content (a pre-commit hook)"),
        ],
        exitNotes: ["1  a file has bad lines", "2  a file cannot be read"])

    init(parsing args: ScannedArguments) throws(UsageError) {
        let paths = try args.nonEmptyPositionals("FILE")
        let format = try args.values["format"].map { text throws(UsageError) in
            guard let format = BookFileFormat(rawValue: text) else {
                throw args.fail("unknown --format '\(text)' (expected text or json)")
            }
            return format
        }
        self.init(paths: paths, format: format, json: args.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        Self.run(paths: paths, format: format, json: json, context)
    }
}

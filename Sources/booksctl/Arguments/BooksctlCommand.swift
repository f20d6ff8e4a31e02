import BooksClient
import BooksCore

/// Runs `subscribe` over the invocation's transport (the socket's feed or NATS's); `log --follow`
/// goes on through it too.
typealias SubscribeRunner = (SubscribeOptions) async throws(BooksClientError) -> ExitCode

/// One booksctl subcommand as a type, after swift-argument-parser's `ParsableCommand`: the type
/// owns its grammar and help (`spec`: positionals, options with their completion, description,
/// examples, exit codes), reads its own arguments into its stored values and runs. The catalog
/// (`CommandCatalog.commands`) is the list of these types; parsing, `--help`, the manual page and
/// the completion scripts are all derived from it.
protocol BooksctlCommand: Equatable {
    /// Its name, summary, positionals, options and help.
    static var spec: CommandSpec { get }
    /// Whether `--store` may be given more than once (only `subscribe`).
    static var acceptsSeveralStores: Bool { get }
    /// Whether it runs without a daemon (help, completion, version): no socket or NATS target is
    /// resolved and no store is needed.
    static var isLocal: Bool { get }
    /// The command a scanned command line names; a malformed one throws a `UsageError` naming
    /// this command (`arguments.fail`).
    init(parsing arguments: ScannedArguments) throws(UsageError)
    /// Runs it against `context`; `subscribe` follows the transport's feed.
    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode
}

extension BooksctlCommand {
    static var acceptsSeveralStores: Bool { false }
    static var isLocal: Bool { false }

    /// Whether `other` is the same command with the same values.
    func isEqual(to other: any BooksctlCommand) -> Bool { (other as? Self) == self }
}

/// A parsed command: one value of one of the catalog's command types.
struct Command: Equatable {
    /// The command, with the values read from the command line.
    var value: any BooksctlCommand

    init(_ value: any BooksctlCommand) { self.value = value }

    static func == (lhs: Command, rhs: Command) -> Bool { lhs.value.isEqual(to: rhs.value) }
}

/// `--version`: print `booksctl <version>`. Not in the catalog (it is an option of the tool).
struct VersionCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "version", summary: "print booksctl's version", positionals: [], options: [], details: [],
        examples: [])
    static var isLocal: Bool { true }

    init() {}
    init(parsing arguments: ScannedArguments) throws(UsageError) {}

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        context.out.line(BookSyncVersion.line(program: "booksctl"))
        return .success
    }
}

/// Every subcommand, as the list of its command types: parsing, help, the manual page and the
/// completion scripts are derived from it.
enum CommandCatalog {
    /// The command types, in help order.
    static var commands: [any BooksctlCommand.Type] {
        [
            SubscribeCommand.self, ListCommand.self, GetCommand.self, AddCommand.self, UpdateCommand.self,
            DeleteCommand.self, StatusCommand.self, PingCommand.self, StoresCommand.self, ConflictsCommand.self,
            ResolveCommand.self, CheckCommand.self, CompletionCommand.self, HelpCommand.self, LogCommand.self,
            ShowCommand.self, BlameCommand.self, UndoCommand.self, EditCommand.self,
        ]
    }

    /// Every subcommand's description, in help order.
    static var all: [CommandSpec] { commands.map { $0.spec } }

    /// The command type named `name`.
    static func command(named name: String) -> (any BooksctlCommand.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// The subcommand named `name`.
    static func spec(named name: String) -> CommandSpec? { command(named: name)?.spec }
}

/// The options several commands share, each written once.
extension OptionSpec {
    /// `--json`/`-j`, its help saying what is printed.
    static func json(_ help: String) -> OptionSpec { .flag("json", short: "j", help) }
    static let json = json("print JSON instead of text")
    static let name = OptionSpec.value("name", "TEXT", "only books whose name contains TEXT (ignoring case)")
    static let author = OptionSpec.value("author", "TEXT", "only books whose author contains TEXT (ignoring case)")
    /// `--expect-version V`: write only if the book is unchanged (`ScannedArguments.expectedVersion`).
    static let expectVersion = OptionSpec.value(
        "expect-version", "V", "only if the book's version is still V (see `get`)")
}

/// The positional arguments and exit notes several commands share, each written once.
extension CommandSpec {
    /// `ID…`: books, each named by its full id or a unique prefix.
    static let ids = (name: "ID…", help: "one or more ids, each in full or a unique prefix")
    /// Exit 5 of a command that names a book by id.
    static let noSuchBook = "\(ExitCode.notFound.rawValue)  no book has this id"
    /// Exit 6 of a write with `--expect-version`.
    static let changedSince = "\(ExitCode.conflict.rawValue)  conflict: the book changed (current values printed)"
}

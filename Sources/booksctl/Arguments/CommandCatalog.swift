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

/// The options several commands share.
extension OptionSpec {
    static let json = OptionSpec.flag("json", short: "j", "print JSON instead of text")
    static let name = OptionSpec.value("name", "TEXT", "only books whose name contains TEXT (ignoring case)")
    static let author = OptionSpec.value("author", "TEXT", "only books whose author contains TEXT (ignoring case)")
}

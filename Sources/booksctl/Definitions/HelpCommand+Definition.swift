import BooksClient

/// `help [CMD]`, `--help` and `CMD --help`: help for the tool (nil) or a subcommand.
struct HelpCommand: Equatable {
    var topic: String?
}

extension HelpCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "help", summary: "show help for booksctl or a command",
        positionals: [], options: [],
        details: ["`booksctl help CMD` is the same as `booksctl CMD --help`."],
        examples: [("booksctl help subscribe", "help for subscribe")], takesCommandName: true)

    static var isLocal: Bool { true }

    init(parsing args: ScannedArguments) throws(UsageError) {
        guard args.positionals.count <= 1 else { throw args.fail("help takes at most one command name") }
        if let topic = args.positionals.first, CommandCatalog.command(named: topic) == nil {
            throw UsageError(message: Suggestion.unknownCommand(topic))
        }
        self.init(topic: args.positionals.first)
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        if let topic, let command = CommandCatalog.command(named: topic) {
            context.out.write(HelpText.command(command.spec))
        } else {
            context.out.write(HelpText.tool)
        }
        return .success
    }
}

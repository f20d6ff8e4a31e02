import BooksClient

/// A command whose one value is `--json` (`status`, `stores`, `conflicts`): it takes no
/// positional argument and runs `run(json:_:)`.
protocol JSONOnlyCommand: BooksctlCommand {
    var json: Bool { get }
    init(json: Bool)
    static func run(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode
}

extension JSONOnlyCommand {
    init(parsing arguments: ScannedArguments) throws(UsageError) {
        _ = try arguments.fixedPositionals(Self.spec)
        self.init(json: arguments.flag("json"))
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(json: json, context)
    }
}

/// A command without arguments or options of its own (`ping`, `edit`): it runs `run(_:)`.
protocol ValuelessCommand: BooksctlCommand {
    init()
    static func run(_ context: CommandContext) async throws(BooksClientError) -> ExitCode
}

extension ValuelessCommand {
    init(parsing arguments: ScannedArguments) throws(UsageError) {
        _ = try arguments.fixedPositionals(Self.spec)
        self.init()
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await Self.run(context)
    }
}

import BooksClient

/// `completion SHELL`: print the completion script for `bash`, `zsh` or `fish`.
struct CompletionCommand: Equatable {
    var shell: CompletionShell
}

extension CompletionCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
        positionals: [("SHELL", "bash, zsh or fish")],
        options: [],
        details: [
            """
            Prints a script, generated from the same command catalog that drives booksctl's parsing and help, \
            that completes commands, options, option values, book ids (by asking the daemon, through \
            `booksctl __complete ids PREFIX`) and store names. Without a running daemon only ids and stores are \
            missing. scripts/install.sh and the Debian package install the scripts where each shell finds them.
            """
        ],
        examples: [
            ("source <(booksctl completion bash)", "enable completion in the current bash"),
            (
                "booksctl completion zsh > \"${fpath[1]}/_booksctl\"",
                "install for zsh (a directory on $fpath)"
            ),
            ("booksctl completion fish > ~/.config/fish/completions/booksctl.fish", "install for fish"),
        ])

    static var isLocal: Bool { true }

    init(parsing args: ScannedArguments) throws(UsageError) {
        let p = try args.fixedPositionals(Self.spec)
        guard let shell = CompletionShell(rawValue: p[0]) else {
            throw args.fail("unknown shell '\(p[0])' (expected bash, zsh or fish)")
        }
        self.init(shell: shell)
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        context.out.write(CompletionScript.render(shell))
        return .success
    }
}

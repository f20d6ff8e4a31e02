/// The part of the catalog that shell completion and the manual page need beyond the commands:
/// the options accepted before any command.
extension CommandCatalog {
    /// The options accepted before the command (and, for `--socket` and the NATS options, after
    /// it). Parsed by `CommandLineParser` and `NATSTarget`; listed here for completion, the manual
    /// page and the test that keeps this list and `booksctl --help` in step.
    static let globalOptions: [OptionSpec] =
        [.value("socket", "PATH", "the daemon's Unix socket (see ENVIRONMENT for the search order)")]
        + NATSOption.allCases.map(\.spec) + [
            .value(
                "store", "NAME", short: "s", "the store to talk to (or BOOKS_STORE; needed when booksd serves several)"
            )
            .completing(.store),
            .flag("help", short: "h", "show help"),
            .flag("version", "print booksctl's version and exit"),
        ]
}

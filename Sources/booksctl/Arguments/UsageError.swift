/// A command line that cannot be run: a short message, and the command whose help explains it.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "missing argument ID".
    var message: String
    /// The subcommand being parsed (nil for the tool itself).
    var command: String?

    var description: String {
        let help = command.map { "booksctl \($0) --help" } ?? "booksctl --help"
        return "booksctl: \(message)\nsee \(help)"
    }
}

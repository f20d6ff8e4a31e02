/// The description of one subcommand: its grammar (positionals and options) and its help.
struct CommandSpec: Sendable {
    var name: String
    /// One line for the command list.
    var summary: String
    /// Positional argument names, in order, e.g. `["ID"]` (all required).
    var positionals: [(name: String, help: String)]
    var options: [OptionSpec]
    /// Paragraphs explaining the command.
    var details: [String]
    /// `(command line, explanation)` pairs.
    var examples: [(String, String)]
    /// Exit codes this command can return, beyond the common ones.
    var exitNotes: [String] = []
    /// Takes an optional command name (`help [COMMAND]`), completed from the catalog.
    var takesCommandName = false

    /// The option with long name `long`, or with short name `short`.
    func option(long: String) -> OptionSpec? { options.first { $0.long == long } }
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }

    /// The usage line, e.g. `booksctl [--socket PATH] get ID [--json]`.
    var usage: String {
        var parts = ["booksctl [--socket PATH] \(name)"]
        parts += positionals.map(\.name)
        for option in options {
            parts.append("[--\(option.long)" + (option.valueName.map { " \($0)" } ?? "") + "]")
        }
        return parts.joined(separator: " ")
    }
}

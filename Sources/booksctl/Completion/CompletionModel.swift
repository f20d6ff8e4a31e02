import BooksCore

/// What a value on the command line is, for completion: an option's own `completion`, else
/// derived from the catalog's placeholder names (`ID`, `PATH`, `FILE`, `CMD`, …) so that commands
/// and options added to the catalog are completed without touching the generators.
enum ValueKind: Equatable, Sendable {
    /// Free text: nothing to offer.
    case text
    /// A file or directory path.
    case file
    /// An executable on `$PATH`.
    case command
    /// A book id, asked from the daemon (`booksctl __complete ids PREFIX`).
    case bookID
    /// A store name, asked from the daemon (`booksctl __complete stores PREFIX`).
    case store
    /// One of a fixed list.
    case choices([String])

    /// The kind of a positional argument or option value named `placeholder` (its first word:
    /// `CMD [ARGS…]` is a command, `ID…` an id).
    static func of(placeholder: String) -> ValueKind {
        let word = (placeholder.split(separator: " ").first ?? "").uppercased().filter { $0.isLetter }
        switch word {
        case "ID", "IDS": return .bookID
        case "PATH", "FILE", "DIR", "DIRECTORY": return .file
        case "CMD", "COMMAND", "PROGRAM": return .command
        case "STORE": return .store
        case "SHELL": return .choices(CompletionShell.allCases.map(\.rawValue))
        default: return .text
        }
    }
}

/// One option as completion sees it: its spellings, help and value kind (nil for a flag).
struct CompletedOption: Equatable, Sendable {
    var long: String
    var short: Character?
    var help: String
    var value: ValueKind?

    init(_ spec: OptionSpec) {
        long = spec.long
        short = spec.short
        help = spec.help
        value = spec.valueName.map { spec.completion ?? ValueKind.of(placeholder: $0) }
    }

    /// `--long` and `-s`.
    var spellings: [String] { ["--\(long)"] + (short.map { ["-\($0)"] } ?? []) }
}

/// One command as completion sees it.
struct CompletedCommand: Equatable, Sendable {
    var name: String
    var summary: String
    var options: [CompletedOption]
    /// The kind of each positional argument, in order.
    var positionals: [ValueKind]
    /// The last positional may be repeated (its name ends with `…` or `...`, e.g. `ID…`).
    var repeatsLast: Bool

    /// The kind of the positional argument at `index` (0-based), nil when none is expected.
    func positional(at index: Int) -> ValueKind? {
        if index < positionals.count { return positionals[index] }
        return repeatsLast ? positionals.last : nil
    }
}

/// Everything the completion scripts are generated from: `CommandCatalog` (commands, their
/// options and positionals) and `CommandCatalog.globalOptions`.
struct CompletionModel: Equatable, Sendable {
    var commands: [CompletedCommand]
    /// Options accepted before the command.
    var global: [CompletedOption]
    /// Options accepted after any command besides its own (`--socket`, NATS options, `--help`).
    var anywhere: [CompletedOption]

    /// The model of the current catalog.
    static var current: CompletionModel { CompletionModel(commands: CommandCatalog.all) }

    init(commands specs: [CommandSpec], global globalSpecs: [OptionSpec] = CommandCatalog.globalOptions) {
        var seen = Set<String>()
        global = globalSpecs.filter { seen.insert($0.long).inserted }.map(CompletedOption.init)
        anywhere = global.filter { $0.long != "version" }
        commands = specs.map { spec in
            var positionals = spec.positionals.map { ValueKind.of(placeholder: $0.name) }
            // `help [COMMAND]` takes a command name, which the catalog does not list as a positional.
            if spec.takesCommandName { positionals = [.choices(specs.map(\.name).filter { $0 != spec.name })] }
            let last = spec.positionals.last?.name ?? ""
            return CompletedCommand(
                name: spec.name, summary: spec.summary,
                options: spec.options.map(CompletedOption.init),
                positionals: positionals, repeatsLast: last.hasSuffix("…") || last.hasSuffix("..."))
        }
    }

    /// The options offered after `command`: its own, then those accepted anywhere that it does not
    /// define itself.
    func options(after command: CompletedCommand) -> [CompletedOption] {
        let own = Set(command.options.map(\.long))
        return command.options + anywhere.filter { !own.contains($0.long) }
    }

    /// Every option that takes a value, anywhere on the line (to skip values when counting words).
    var valueOptions: [String] {
        var names = Set<String>()
        for option in global + commands.flatMap(\.options) where option.value != nil {
            names.formUnion(option.spellings)
        }
        return names.sorted()
    }
}

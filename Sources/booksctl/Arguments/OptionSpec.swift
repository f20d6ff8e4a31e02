/// One option a command accepts: `--long` (and an optional `-s`), a flag or one taking a value.
struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes, e.g. `name`.
    var long: String
    /// A one-letter alias, e.g. `j` for `-j`.
    var short: Character?
    /// The value's placeholder in help (nil for a flag).
    var valueName: String?
    /// The help text.
    var help: String
    /// Whether the option takes every remaining argument as its value (`--exec CMD [ARGS…]`).
    var takesRest = false
    /// What completion offers for its value, when the placeholder does not say (`ValueKind.of`).
    var completion: ValueKind?

    /// This option, its value completed as `kind`.
    func completing(_ kind: ValueKind) -> OptionSpec {
        var option = self
        option.completion = kind
        return option
    }

    /// A boolean flag.
    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    /// An option taking one value.
    static func value(_ long: String, _ valueName: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, help: help)
    }

    /// An option taking every remaining argument (at least one), e.g. `--exec CMD [ARGS…]`.
    static func rest(_ long: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: nil, valueName: valueName, help: help, takesRest: true)
    }
}

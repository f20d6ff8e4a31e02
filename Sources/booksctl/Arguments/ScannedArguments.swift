/// A command's arguments after tokenising: positionals, option values and flags.
struct ScannedArguments: Equatable {
    var positionals: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var help = false
    /// The command's name (for its usage errors).
    var command = ""
    /// The arguments of a `takesRest` option (`--exec CMD [ARGS…]`), by its long name.
    var rest: [String: [String]] = [:]

    /// Splits `tokens` according to `spec`.
    ///
    /// Accepts `--opt VALUE`, `--opt=VALUE`, `-s VALUE`, `-s` for flags, combined short flags are
    /// not supported; `--` ends option parsing. `--socket PATH` is accepted anywhere and reported in
    /// `socket`; `--store NAME` / `-s NAME` anywhere, appended to `stores`. Unknown options, missing
    /// values and repeated options are usage errors.
    static func scan(
        _ tokens: [String], spec: CommandSpec, socket: inout String?, stores: inout [String]
    ) throws(UsageError) -> ScannedArguments {
        var result = ScannedArguments(command: spec.name)
        var index = 0
        var optionsEnded = false
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.name) }
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                result.positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            if token == "-h" || token == "--help" {
                result.help = true
                continue
            }
            var name: String
            var inlineValue: String?
            let option: OptionSpec?
            if token.hasPrefix("--") {
                name = String(token.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if name == "store" {
                    guard let value = inlineValue ?? (index < tokens.count ? tokens[index] : nil) else {
                        throw fail("option --store needs a value NAME")
                    }
                    if inlineValue == nil { index += 1 }
                    stores.append(value)
                    continue
                }
                if name == "socket" {
                    guard let value = inlineValue ?? (index < tokens.count ? tokens[index] : nil) else {
                        throw fail("option --socket needs a value PATH")
                    }
                    if inlineValue == nil { index += 1 }
                    socket = value
                    continue
                }
                option = spec.option(long: name)
            } else {
                let letters = token.dropFirst()
                guard letters.count == 1, let letter = letters.first else {
                    throw fail(Suggestion.unknownOption(token, spec: spec))
                }
                if letter == "s" && spec.option(short: "s") == nil {
                    guard index < tokens.count else { throw fail("option --store needs a value NAME") }
                    stores.append(tokens[index])
                    index += 1
                    continue
                }
                option = spec.option(short: letter)
                name = option?.long ?? String(letter)
            }
            guard let option else { throw fail(Suggestion.unknownOption(token, spec: spec)) }
            if option.takesRest {
                let tail = (inlineValue.map { [$0] } ?? []) + tokens[index...]
                guard !tail.isEmpty else { throw fail("option --\(option.long) needs \(option.valueName!)") }
                result.rest[option.long] = tail
                return result
            }
            if option.valueName != nil {
                guard let value = inlineValue ?? (index < tokens.count ? tokens[index] : nil) else {
                    throw fail("option --\(option.long) needs a value \(option.valueName!)")
                }
                if inlineValue == nil { index += 1 }
                guard result.values[option.long] == nil else { throw fail("option --\(option.long) given twice") }
                result.values[option.long] = value
            } else {
                guard inlineValue == nil else { throw fail("option --\(option.long) takes no value") }
                guard !result.flags.contains(option.long) else { throw fail("option --\(option.long) given twice") }
                result.flags.insert(option.long)
            }
        }
        return result
    }
}

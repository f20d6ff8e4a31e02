import BooksCore

/// Turns `booksctl`'s arguments (without the program name) into an `Invocation`.
///
/// Grammar: `[--socket PATH] [--store NAME]… [--help] <command> [args…]`; `--socket` and
/// `--store` (`-s`) are also accepted after the command. `--store` may be given several times
/// only to `subscribe`. `CMD --help` and `help CMD` both yield `.help(CMD)`. Every malformed line throws a
/// `UsageError` naming the command whose help applies.
enum CommandLineParser {
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var socket: String?
        var stores: [String] = []
        var index = 0
        // Global options before the command.
        while index < arguments.count, arguments[index].hasPrefix("-") {
            let token = arguments[index]
            index += 1
            switch token {
            case "-h", "--help":
                return Invocation(socket: socket, command: .help(nil))
            case "--version":
                return Invocation(socket: socket, command: .version)
            case "--socket":
                guard index < arguments.count else { throw UsageError(message: "option --socket needs a value PATH") }
                socket = arguments[index]
                index += 1
            case _ where token.hasPrefix("--socket="):
                socket = String(token.dropFirst("--socket=".count))
            case "-s", "--store":
                guard index < arguments.count else { throw UsageError(message: "option --store needs a value NAME") }
                stores.append(arguments[index])
                index += 1
            case _ where token.hasPrefix("--store="):
                stores.append(String(token.dropFirst("--store=".count)))
            default:
                let bare = String(token.drop { $0 == "-" }.prefix { $0 != "=" })
                let hint = Suggestion.hint(
                    Suggestion.closest(to: bare, among: ["socket", "help"]).map { "--" + $0 })
                throw UsageError(message: "unknown option \(token)\(hint) (options of a command go after its name)")
            }
        }
        guard index < arguments.count else { throw UsageError(message: "missing command") }
        let name = arguments[index]
        guard let spec = CommandCatalog.spec(named: name) else {
            throw UsageError(message: Suggestion.unknownCommand(name))
        }
        let scanned = try ScannedArguments.scan(
            Array(arguments[(index + 1)...]), spec: spec, socket: &socket, stores: &stores)
        if scanned.help { return Invocation(socket: socket, command: .help(name)) }
        if let empty = stores.first(where: \.isEmpty) {
            throw UsageError(message: "--store needs a store name, not '\(empty)'", command: spec.name)
        }
        if stores.count > 1 && spec.name != "subscribe" {
            throw UsageError(
                message: "\(spec.name) works on one store; --store was given \(stores.count) times", command: spec.name)
        }
        return Invocation(socket: socket, command: try build(spec, scanned), stores: stores)
    }

    private static func build(_ spec: CommandSpec, _ args: ScannedArguments) throws(UsageError) -> Command {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.name) }
        if spec.name == "help" {
            guard args.positionals.count <= 1 else { throw fail("help takes at most one command name") }
            if let topic = args.positionals.first, CommandCatalog.spec(named: topic) == nil {
                throw UsageError(message: Suggestion.unknownCommand(topic))
            }
            return .help(args.positionals.first)
        }
        let json = args.flags.contains("json")
        if let special = try variadic(spec, args, json: json) { return special }
        let wanted = spec.positionals.count
        if args.positionals.count < wanted {
            throw fail("missing argument \(spec.positionals[args.positionals.count].name)")
        }
        if args.positionals.count > wanted {
            throw fail("unexpected argument '\(args.positionals[wanted])'")
        }
        let p = args.positionals
        for (value, positional) in zip(p, spec.positionals) where value.isEmpty && positional.name.hasSuffix("ID") {
            throw fail("\(positional.name) must not be empty")
        }
        switch spec.name {
        case "subscribe":
            if args.values["coalesce"] != nil && args.rest["exec"] == nil {
                throw fail("--coalesce needs --exec CMD (it merges the change sets of a burst into one run of CMD)")
            }
            if args.flags.contains("conflicts") && args.rest["exec"] != nil {
                throw fail("--conflicts prints conflict lines; it does not go with --exec")
            }
            return .subscribe(
                SubscribeOptions(
                    json: json, name: args.values["name"], author: args.values["author"],
                    initial: args.flags.contains("initial"), mirror: args.flags.contains("mirror"),
                    since: args.values["since"], cursorFile: args.values["cursor-file"], exec: args.rest["exec"],
                    coalesce: try args.values["coalesce"].map { text throws(UsageError) in
                        try count(text, "--coalesce", spec)
                    } ?? 0,
                    count: try subscribeCount(args, spec), conflicts: args.flags.contains("conflicts")))
        case "list":
            let array = args.flags.contains("json-array")
            var options = ListOptions(
                json: json || array, jsonArray: array, name: args.values["name"], author: args.values["author"])
            options.full = args.flags.contains("full")
            if let text = args.values["sort"] {
                guard let sort = BookSort(parsing: text) else {
                    throw fail("invalid --sort '\(text)' (expected id, name or author, optionally prefixed by -)")
                }
                options.sort = sort
            }
            if let text = args.values["limit"] { options.limit = try count(text, "--limit", spec) }
            if let text = args.values["offset"] { options.offset = try count(text, "--offset", spec) }
            options.at = try args.values["at"].map { text throws(UsageError) in try when(text, "--at", spec) }
            return .list(options)
        case "add":
            return .add(name: p[0], author: p[1], json: json)
        case "update":
            let options = UpdateOptions(
                id: p[0], name: args.values["name"], author: args.values["author"],
                expectVersion: try version(args.values["expect-version"], spec), json: json)
            guard options.name != nil || options.author != nil else {
                throw fail("nothing to change: give --name and/or --author")
            }
            return .update(options)
        case "status":
            return .status(json: json)
        case "ping":
            return .ping
        case "completion":
            guard let shell = CompletionShell(rawValue: p[0]) else {
                throw fail("unknown shell '\(p[0])' (expected bash, zsh or fish)")
            }
            return .completion(shell)
        case "stores":
            return .stores(json: json)
        case "conflicts":
            return .conflicts(json: json)
        case "edit":
            return .edit
        case "resolve":
            guard let text = args.values["take"] else { throw fail("missing --take mine|theirs") }
            guard let side = ConflictSide(rawValue: text) else {
                throw fail("invalid --take '\(text)' (expected mine or theirs)")
            }
            return .resolve(id: p[0], take: side, json: json)
        default:
            throw UsageError(message: "unknown command '\(spec.name)'")
        }
    }

    /// `get ID…`, `delete ID…`, `check FILE…` and `add -`; nil for the other commands.
    private static func variadic(
        _ spec: CommandSpec, _ args: ScannedArguments, json: Bool
    ) throws(UsageError) -> Command? {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.name) }
        switch spec.name {
        case "get", "delete":
            guard !args.positionals.isEmpty else { throw fail("missing argument ID") }
            if let empty = args.positionals.firstIndex(of: "") { throw fail("ID \(empty + 1) must not be empty") }
            if spec.name == "get" { return .get(ids: args.positionals, json: json) }
            let expected = try version(args.values["expect-version"], spec)
            if expected != nil, args.positionals.count > 1 { throw fail("--expect-version needs exactly one ID") }
            return .delete(ids: args.positionals, expectVersion: expected, json: json)
        case "check":
            guard !args.positionals.isEmpty else { throw fail("missing argument FILE") }
            if let empty = args.positionals.firstIndex(of: "") { throw fail("FILE \(empty + 1) must not be empty") }
            let format = try args.values["format"].map { text throws(UsageError) in
                guard let format = BookFileFormat(rawValue: text) else {
                    throw fail("unknown --format '\(text)' (expected text or json)")
                }
                return format
            }
            return .check(paths: args.positionals, format: format, json: json)
        case "add" where args.positionals == ["-"]:
            return .addFromInput(json: json)
        case "log", "show", "blame", "undo":
            return try history(spec, args, json: json)
        default:
            return nil
        }
    }

    /// `--count N` or `--once` (not both).
    private static func subscribeCount(_ args: ScannedArguments, _ spec: CommandSpec) throws(UsageError) -> Int? {
        let once = args.flags.contains("once")
        guard let text = args.values["count"] else { return once ? 1 : nil }
        guard !once else { throw UsageError(message: "give --count or --once, not both", command: spec.name) }
        let value = try count(text, "--count", spec)
        guard value > 0 else { throw UsageError(message: "--count needs a positive number", command: spec.name) }
        return value
    }

    private static func count(_ text: String, _ option: String, _ spec: CommandSpec) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw UsageError(message: "\(option) needs a non-negative integer, not '\(text)'", command: spec.name)
        }
        return value
    }

    private static func version(_ text: String?, _ spec: CommandSpec) throws(UsageError) -> UInt64? {
        guard let text else { return nil }
        guard let value = UInt64(text) else {
            throw UsageError(message: "--expect-version needs a version number, not '\(text)'", command: spec.name)
        }
        return value
    }
}

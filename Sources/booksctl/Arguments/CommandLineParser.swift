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
                return Invocation(socket: socket, command: Command(HelpCommand(topic: nil)))
            case "--version":
                return Invocation(socket: socket, command: Command(VersionCommand()))
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
        guard let type = CommandCatalog.command(named: name) else {
            throw UsageError(message: Suggestion.unknownCommand(name))
        }
        let spec = type.spec
        let scanned = try ScannedArguments.scan(
            Array(arguments[(index + 1)...]), spec: spec, socket: &socket, stores: &stores)
        if scanned.help { return Invocation(socket: socket, command: Command(HelpCommand(topic: name))) }
        if let empty = stores.first(where: \.isEmpty) {
            throw UsageError(message: "--store needs a store name, not '\(empty)'", command: spec.name)
        }
        if stores.count > 1 && !type.acceptsSeveralStores {
            throw UsageError(
                message: "\(spec.name) works on one store; --store was given \(stores.count) times", command: spec.name)
        }
        return Invocation(socket: socket, command: Command(try type.init(parsing: scanned)), stores: stores)
    }
}

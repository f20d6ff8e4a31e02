import BooksClient

/// `ping` as a type: its grammar and help, how it is read from the command line, how it runs.
extension PingCommand: ValuelessCommand {
    static let spec = CommandSpec(
        name: "ping", summary: "check that the daemon answers",
        positionals: [], options: [],
        details: ["Connects, says hello and pings; prints the server, its position and the round-trip time."],
        examples: [("booksctl ping && echo up", "use in scripts")])
}

import BooksCore
import Testing

@testable import booksctl

@Suite struct ArgumentParserTests {
    func parse(_ line: String) throws(UsageError) -> Invocation {
        try CommandLineParser.parse(line.split(separator: " ").map(String.init))
    }

    func usageError(_ line: String) -> UsageError? {
        do {
            _ = try parse(line)
            return nil
        } catch { return error }
    }

    @Test func subscribe() throws {
        #expect(try parse("subscribe").command == .subscribe(SubscribeOptions()))
        let full = try parse("subscribe --json --name dune --author=herbert --initial")
        #expect(
            full.command == .subscribe(SubscribeOptions(json: true, name: "dune", author: "herbert", initial: true)))
        if let options = (full.command.value as? SubscribeCommand)?.options {
            #expect(
                options.filter
                    == BookFilter([
                        BookCondition(.name, .containsIgnoringCase, "dune"),
                        BookCondition(.author, .containsIgnoringCase, "herbert"),
                    ]))
        }
        #expect(try parse("subscribe -j").command == .subscribe(SubscribeOptions(json: true)))
    }

    @Test func list() throws {
        #expect(try parse("list").command == .list(ListOptions()))
        let invocation = try parse("list --json --author austen --sort -name --limit 10 --offset 20")
        let expected = ListOptions(
            json: true, name: nil, author: "austen", sort: BookSort(.name, ascending: false),
            limit: 10, offset: 20)
        #expect(invocation.command == .list(expected))
        if let options = (invocation.command.value as? ListCommand)?.options {
            #expect(
                options.query
                    == BookQuery(
                        filter: BookFilter([BookCondition(.author, .containsIgnoringCase, "austen")]),
                        sort: BookSort(.name, ascending: false), limit: 10, offset: 20))
        }
        #expect(usageError("list --sort title")?.command == "list")
        #expect(usageError("list --limit -1") != nil)
        #expect(usageError("list --offset x") != nil)
        #expect(usageError("list extra") != nil)
    }

    @Test func singleBookCommands() throws {
        #expect(try parse("get abc").command == .get(ids: ["abc"], json: false))
        #expect(try parse("get abc --json").command == .get(ids: ["abc"], json: true))
        #expect(try parse("get abc de f").command == .get(ids: ["abc", "de", "f"], json: false))
        #expect(
            try CommandLineParser.parse(["add", "Dune", "Frank Herbert"]).command
                == .add(name: "Dune", author: "Frank Herbert"))
        #expect(
            try CommandLineParser.parse(["add", "--", "-1 Below", "X"]).command == .add(name: "-1 Below", author: "X"))
        #expect(
            try parse("update abc --name N --expect-version 7").command
                == .update(UpdateOptions(id: "abc", name: "N", author: nil, expectVersion: 7)))
        #expect(try parse("update abc --author A").command == .update(UpdateOptions(id: "abc", author: "A")))
        #expect(try parse("delete abc").command == .delete(ids: ["abc"], expectVersion: nil))
        #expect(try parse("delete abc --expect-version 3").command == .delete(ids: ["abc"], expectVersion: 3))
        #expect(try parse("delete a b -j").command == .delete(ids: ["a", "b"], expectVersion: nil, json: true))
        #expect(usageError("delete a b --expect-version 3")?.message == "--expect-version needs exactly one ID")
        #expect(try parse("status").command == .status(json: false))
        #expect(try parse("status --json").command == .status(json: true))
        #expect(try parse("ping").command == .ping)
    }

    @Test func usageErrorsNameTheCommand() {
        let cases: [(String, String?)] = [
            ("get", "get"), ("get --json", "get"), ("add onlyname", "add"), ("update abc", "update"),
            ("update abc --expect-version x --name n", "update"), ("delete", "delete"),
            ("delete a --expect-version -3", "delete"), ("status --bogus", "status"), ("ping now", "ping"),
            ("list --name", "list"), ("subscribe --json --json", "subscribe"), ("subscribe --json=yes", "subscribe"),
            ("frobnicate", nil), ("--bogus list", nil), ("", nil),
        ]
        for (line, command) in cases {
            let error = usageError(line)
            #expect(error != nil, "\(line) should be a usage error")
            #expect(error?.command == command, "\(line)")
        }
        #expect(usageError("get")?.description == "booksctl: missing argument ID\nsee booksctl get --help")
    }

    @Test func helpForms() throws {
        #expect(try parse("--help").command == .help(nil))
        #expect(try parse("help").command == .help(nil))
        #expect(try parse("help list").command == .help("list"))
        #expect(try parse("list --help").command == .help("list"))
        #expect(try parse("get -h").command == .help("get"))
        #expect(usageError("help nosuch") != nil)
        for spec in CommandCatalog.all {
            let text = HelpText.command(spec)
            #expect(text.contains("USAGE"))
            #expect(text.contains("EXIT CODES"))
            #expect(text.contains("BOOKS_SOCKET"))
            #expect(text.contains("EXAMPLES"))
            for option in spec.options { #expect(text.contains("--\(option.long)")) }
        }
        #expect(HelpText.tool.contains("systemctl start booksd.socket"))
    }

    @Test func socketOptionAnywhere() throws {
        #expect(try parse("--socket /tmp/a.sock ping") == Invocation(socket: "/tmp/a.sock", command: .ping))
        #expect(try parse("--socket=/tmp/a.sock ping") == Invocation(socket: "/tmp/a.sock", command: .ping))
        #expect(
            try parse("list --socket /tmp/b.sock --json")
                == Invocation(socket: "/tmp/b.sock", command: .list(ListOptions(json: true))))
        #expect(usageError("--socket") != nil)
    }
}

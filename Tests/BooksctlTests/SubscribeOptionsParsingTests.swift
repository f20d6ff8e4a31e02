import Testing

@testable import booksctl

@Suite struct SubscribeOptionsParsingTests {
    func parse(_ arguments: [String]) throws(UsageError) -> Command {
        try CommandLineParser.parse(arguments).command
    }

    func message(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch { return error.message }
    }

    @Test func execTakesTheRestOfTheLine() throws {
        let command = try parse(["subscribe", "--coalesce", "200", "--once", "--exec", "make", "-C", "site", "--json"])
        var expected = SubscribeOptions()
        expected.coalesce = 200
        expected.count = 1
        expected.exec = ["make", "-C", "site", "--json"]
        #expect(command == .subscribe(expected))
        #expect(message(["subscribe", "--exec"]) == "option --exec needs CMD [ARGS…]")
    }

    @Test func conflictsIsAFlagThatDoesNotGoWithExec() throws {
        var expected = SubscribeOptions(json: true)
        expected.conflicts = true
        #expect(try parse(["subscribe", "--json", "--conflicts"]) == .subscribe(expected))
        #expect(try parse(["subscribe"]) == .subscribe(SubscribeOptions()), "off unless asked")
        let refused = message(["subscribe", "--conflicts", "--exec", "true"])
        #expect(
            refused?.contains("--conflicts prints conflict lines; it does not go with --exec") == true,
            "\(refused ?? "")")
    }

    @Test func cursorOptions() throws {
        var expected = SubscribeOptions(json: true, since: "E:5")
        expected.cursorFile = "/tmp/c"
        expected.count = 3
        #expect(
            try parse(["subscribe", "--json", "--since", "E:5", "--cursor-file", "/tmp/c", "--count", "3"])
                == .subscribe(expected))
        #expect(message(["subscribe", "--count", "0"]) == "--count needs a positive number")
        #expect(message(["subscribe", "--count", "2", "--once"]) == "give --count or --once, not both")
    }

    @Test func sinceIsACursorASeqOrATimeAndRejectsMirror() throws {
        let epoch = "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90"
        #expect(try SinceOption.start(SubscribeOptions(since: "\(epoch):42")) == .cursor(Cursor(epoch: epoch, seq: 42)))
        #expect(try SinceOption.start(SubscribeOptions(since: "42")) == .seq(42))
        #expect(try SinceOption.start(SubscribeOptions(since: "0")) == .seq(0))
        guard case .time? = try SinceOption.start(SubscribeOptions(since: "2026-01-01T00:00:00Z")) else {
            Issue.record("an ISO 8601 time is a time")
            return
        }
        #expect(throws: SubscribeFailure.self) { try SinceOption.start(SubscribeOptions(since: "bogus")) }
        #expect(throws: SubscribeFailure.self) { try SinceOption.start(SubscribeOptions(since: "bogus:3")) }
        #expect(throws: SubscribeFailure.self) {
            try SinceOption.start(SubscribeOptions(mirror: true, since: "E:1"))
        }
        #expect(try SinceOption.start(SubscribeOptions()) == nil)
    }

    @Test func addFromStandardInputAndDashNames() throws {
        #expect(try parse(["add", "-"]) == .addFromInput(json: false))
        #expect(try parse(["add", "-", "--json"]) == .addFromInput(json: true))
        #expect(try parse(["add", "--", "-", "x"]) == .add(name: "-", author: "x"))
        #expect(try parse(["add", "--", "--json", "-x"]) == .add(name: "--json", author: "-x"))
        // Empty names and authors are values like any other (docs/FORMAT.md).
        #expect(try parse(["add", "", ""]) == .add(name: "", author: ""))
        #expect(try parse(["update", "a", "--name", ""]) == .update(UpdateOptions(id: "a", name: "")))
        #expect(message(["update", "", "--name", "x"]) == "ID must not be empty")
    }

    @Test func didYouMean() {
        #expect(message(["sbuscribe"]) == "unknown command 'sbuscribe' (did you mean 'subscribe'?)")
        #expect(message(["lst"]) == "unknown command 'lst' (did you mean 'list'?)")
        #expect(message(["frobnicate"]) == "unknown command 'frobnicate'")
        #expect(message(["help", "stauts"]) == "unknown command 'stauts' (did you mean 'status'?)")
        #expect(message(["list", "--jsn"]) == "unknown option --jsn (did you mean '--json'?)")
        #expect(message(["list", "--sotr=name"]) == "unknown option --sotr=name (did you mean '--sort'?)")
        #expect(
            message(["subscribe", "--curser-file", "x"])
                == "unknown option --curser-file (did you mean '--cursor-file'?)")
        #expect(
            message(["--sockt", "x", "list"])?.hasPrefix("unknown option --sockt (did you mean '--socket'?)") == true)
    }

    @Test func editDistance() {
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("list", "list") == 0)
        #expect(Suggestion.editDistance("stauts", "status") == 1, "an adjacent swap is one edit")
        #expect(Suggestion.editDistance("lsit", "list") == 1)
        #expect(Suggestion.editDistance("lsit", "edit") == 2)
        #expect(Suggestion.closest(to: "lsit", among: CommandCatalog.all.map(\.name)) == ["list"])
        #expect(Suggestion.closest(to: "get", among: ["get", "set"]) == ["get"])
        #expect(Suggestion.closest(to: "xet", among: ["get", "set", "list"]) == ["get", "set"])
        #expect(Suggestion.closest(to: "sub", among: ["subscribe", "status"]) == ["subscribe"])
    }
}

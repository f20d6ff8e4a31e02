import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import booksctl

/// `log`, `show`, `blame`, `undo` and `list --at` on the command line: WHEN read at parse time,
/// bad input a usage error (exit 2) with the forms accepted.
@Suite struct HistoryCommandParsingTests {
    func parse(_ arguments: [String]) throws(UsageError) -> Command {
        try CommandLineParser.parse(arguments).command
    }

    /// The options of the `log` the arguments name, nil for another command.
    func log(_ arguments: [String]) throws(UsageError) -> LogOptions? {
        (try parse(arguments).value as? LogCommand)?.options
    }

    func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try parse(arguments)
            return nil
        } catch { return error }
    }

    @Test func logTakesBoundsCountIDAndFilters() throws {
        guard let options = try log(["log", "--since", "-1m", "-n", "3", "--id", "b1", "-p", "--json"])
        else {
            Issue.record("not a log")
            return
        }
        #expect(options.count == 3 && options.id == "b1" && options.patch && options.json)
        guard case .time(let since) = options.since else {
            Issue.record("--since -1m is a time")
            return
        }
        #expect(abs(since.timeIntervalSinceNow + 60) < 5)
        let cursor = "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90:17"
        guard let bounded = try log(["log", "--until", cursor, "--author", "austen", "-f"]) else {
            Issue.record("not a log")
            return
        }
        #expect(bounded.until == .cursor(epoch: "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90", seq: 17))
        #expect(
            bounded.follow && bounded.filter == BookFilter([BookCondition(.author, .containsIgnoringCase, "austen")]))
    }

    @Test func showBlameUndoAndListAt() throws {
        #expect(try parse(["show", "42"]) == .show(seq: 42, json: false))
        #expect(try parse(["blame"]) == .blame(ids: [], json: false))
        #expect(try parse(["blame", "a", "b", "-j"]) == .blame(ids: ["a", "b"], json: true))
        #expect(try parse(["undo", "3", "1", "--force"]) == .undo(seqs: [3, 1], force: true, json: false))
        guard let list = (try parse(["list", "--at", "7", "--sort", "name"]).value as? ListCommand)?.options else {
            Issue.record("not a list")
            return
        }
        #expect(list.at == .seq(7))
    }

    @Test(arguments: [
        ["log", "--since", "bogus"], ["log", "--until", "-5x"], ["list", "--at", "2026-13-01"], ["log", "-n", "0"],
        ["show"], ["show", "x"], ["undo"], ["undo", "0"], ["log", "extra"],
    ])
    func badInputIsAUsageErrorWithAHint(arguments: [String]) {
        let error = usageError(arguments)
        #expect(error != nil)
        if arguments.contains("bogus") || arguments.contains("-5x") || arguments.contains("2026-13-01") {
            #expect(error?.message.contains("hint: WHEN is -10m, -2h") == true)
        }
    }
}

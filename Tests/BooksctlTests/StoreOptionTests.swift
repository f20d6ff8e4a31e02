import BooksClient
import BooksProtocol
import Testing

@testable import booksctl

/// `--store NAME` / `-s NAME` on the command line, and the exit code of a missing or unknown store.
@Suite struct StoreOptionTests {
    func parse(_ line: String) throws(UsageError) -> Invocation {
        try CommandLineParser.parse(line.split(separator: " ").map(String.init))
    }

    @Test func storeIsAcceptedBeforeAndAfterTheCommand() throws {
        #expect(try parse("--store fiction list").stores == ["fiction"])
        #expect(try parse("list -s fiction --json").stores == ["fiction"])
        #expect(try parse("-s a get 7").stores == ["a"])
        #expect(try parse("get 7 --store=a").stores == ["a"])
        #expect(try parse("list").stores.isEmpty)
        #expect(try parse("stores --json").command == .stores(json: true))
    }

    @Test func onlySubscribeTakesSeveralStores() throws {
        #expect(try parse("subscribe -s a --store b").stores == ["a", "b"])
        #expect(throws: UsageError.self) { try parse("list -s a -s b") }
        #expect(throws: UsageError.self) { try parse("list --store") }
        #expect(throws: UsageError.self) { try parse("list --store=") }
    }

    @Test func aMissingOrUnknownStoreIsAUsageErrorListingTheStores() {
        let required = BooksClientError.daemon(ProtocolError(.storeRequired, "name one", stores: ["a", "default"]))
        #expect(ErrorReporter.exitCode(for: required) == .usage)
        #expect(ErrorReporter.message(for: required).contains("a, default"))
        let unknown = BooksClientError.daemon(ProtocolError(.unknownStore, "no store named \"x\"", stores: ["a"]))
        #expect(ErrorReporter.exitCode(for: unknown) == .usage)
        #expect(ErrorReporter.message(for: unknown).contains("x") && ErrorReporter.message(for: unknown).contains("a"))
    }
}

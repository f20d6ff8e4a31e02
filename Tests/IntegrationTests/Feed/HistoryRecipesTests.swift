import BooksTestSupport
import Foundation
import Testing

/// The history recipes of docs/CLI.md, run as written: "who deleted X", "the list as of
/// yesterday" (and before change set N), "undo the last import".
@Suite("History: the docs/CLI.md recipes")
struct HistoryRecipesTests {
    typealias Parity = NATSCLIParityTests

    @Test func whoDeletedTheListAsItWasAndUndoTheLastImportWorkAsDocumented() async throws {
        let daemon = try await FeedDaemon(rows: ["1|Dune|Frank Herbert", "2|Emma|Jane Austen"])
        let ctl = { (arguments: [String]) in try await Parity.booksctl(nats: nil, daemon, arguments) }
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        // 1: "Dune" deleted by a client; 2: an import of two books (`add -`: one change set).
        #expect(try await ctl(["delete", "1"]).status == 0)
        let imported = try await ChildProcess.run(
            [BuildProducts.booksctl, "--socket", daemon.socket, "add", "-"],
            input: Array("Walden\tHenry David Thoreau\nMiddlemarch\tGeorge Eliot\n".utf8))
        #expect(imported.succeeded, "\(imported)")

        // Who deleted "Dune"? `log --name dune -p` names the change set, its actor and the book.
        let who = try await ctl(["log", "--name", "dune", "-p"])
        #expect(who.lines.count == 2, "\(who)")
        #expect(who.lines.first?.hasPrefix("1  ") == true && who.lines.first?.contains("client  \(user) ") == true)
        #expect(who.lines.last?.hasPrefix("    - 1  Dune — Frank Herbert") == true, "\(who)")
        let blamed = try await ctl(["blame", "--json"])
        let deleted = blamed.lines.map(Parity.members).filter { $0["change"] == "deleted" }
        #expect(deleted.map { $0["id"] } == ["1"] && deleted.first?.contains { $0.value.contains(user) } == true)

        // The list as of yesterday: before every change set kept here, the list booksd started with.
        let yesterday = try await ctl(["list", "--at", "yesterday", "--json"])
        // (Unsorted: today's books in file order, then those deleted since, as docs/CLI.md says.)
        #expect(yesterday.lines.compactMap { Parity.members($0)["name"] } == ["Emma", "Dune"], "\(yesterday)")
        let beforeImport = try await ctl(["list", "--at", "1", "--author", "austen", "--sort", "name"])
        #expect(beforeImport.status == 0 && beforeImport.lines.count == 1, "\(beforeImport)")

        // Undo the last import: `log -n 3` shows its seq (2), `undo 2` removes both books at once.
        let recent = try await ctl(["log", "-n", "3"])
        #expect(recent.lines.last?.hasPrefix("2  ") == true && recent.lines.last?.contains("+2") == true)
        let undone = try await ctl(["undo", "2"])
        #expect(undone.status == 0 && undone.output.contains("the store is at seq 3"), "\(undone)")
        #expect(try daemon.fileBooks().map(\.name) == ["Emma"])
        let last = try await ctl(["log", "-n", "1", "--json"])
        #expect(Parity.members(last.lines.first ?? "")["source"] == "undo", "\(last)")
    }
}

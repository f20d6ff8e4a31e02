import BooksClient
import BooksTestSupport
import Foundation
import Testing

/// `booksctl log -f`: after the change sets `log` prints, it goes on live in `log`'s format (one
/// line per change set, `-p` patches, `--json` objects), choosing change sets as `log` does.
@Suite("History: log --follow")
struct HistoryFollowTests {
    typealias Parity = NATSCLIParityTests

    @Test func logFollowPrintsLiveChangeSetsAsLogDoes() async throws {
        let daemon = try await FeedDaemon(rows: ["1|Dune|Herbert", "2|Emma|Austen"])
        let client = try await daemon.connect()
        _ = try await client.update([BookPatch(id: "1", name: "Dune Messiah")])
        let runs: [(String, [String])] = [
            ("text", ["log", "-f", "-p"]), ("json", ["log", "-f", "--json"]),
            ("id", ["log", "-f", "--id", "2", "--json"]), ("author", ["log", "-f", "--author", "austen"]),
        ]
        var children: [ChildProcess] = []
        defer { for child in children { _ = child.kill() } }
        for (name, arguments) in runs {
            children.append(
                try ChildProcess.spawn(
                    [BuildProducts.booksctl, "--socket", daemon.socket] + arguments,
                    stdout: .appendFile(daemon.directory + "/\(name).out")))
        }
        let out = { (name: String) in Parity.lines(daemon.directory + "/\(name).out") }
        #expect(await eventually(timeout: 20, interval: 0.05) { out("text").count == 2 && out("json").count == 1 })
        // Live: a change of book 1 only, then of both books (book 2's author changes, from Austen).
        _ = try await client.update([BookPatch(id: "1", name: "Children of Dune")])
        _ = try await client.update([BookPatch(id: "1", name: "God Emperor"), BookPatch(id: "2", author: "J. Austen")])
        let done = await eventually(timeout: 20, interval: 0.05) {
            out("json").count == 3 && out("id").count == 1 && out("author").count == 1
        }
        #expect(done, "json \(out("json")), id \(out("id")), author \(out("author"))")
        try await Task.sleep(for: .milliseconds(200))
        let logged = try await Parity.booksctl(nats: nil, daemon, ["log", "-p"])
        #expect(out("text") == logged.lines, "log -f -p printed what log -p prints: \(out("text")) / \(logged.lines)")
        #expect(out("text").filter { !$0.hasPrefix(" ") }.map { $0.prefix(3) } == ["1  ", "2  ", "3  "])
        #expect(out("text").last?.hasPrefix("    ~ 2  Emma — Austen → Emma — J. Austen") == true, "\(out("text"))")
        let json = try await Parity.booksctl(nats: nil, daemon, ["log", "--json"])
        #expect(out("json") == json.lines, "log -f --json printed log --json's objects")
        #expect(out("json").allSatisfy { Parity.members($0)["changes"] != nil && Parity.members($0)["kind"] == nil })
        let only = try await Parity.booksctl(nats: nil, daemon, ["log", "--id", "2", "--json"])
        #expect(out("id") == only.lines && Parity.members(out("id").first ?? "")["seq"] == "3", "\(out("id"))")
        // The whole change set (both books), as `log --author` shows it.
        let austen = try await Parity.booksctl(nats: nil, daemon, ["log", "--author", "austen"])
        #expect(out("author") == austen.lines && out("author").first?.contains("and 1 more") == true)
    }
}

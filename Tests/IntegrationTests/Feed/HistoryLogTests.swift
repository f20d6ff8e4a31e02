import BooksClient
import BooksCore
import BooksNATS
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// `booksctl log`, `show`, `blame`, `list --at` and `undo` against a real booksd: a client
/// write, a sed edit, a vim save (in tmux) and a NATS write, each attributed; the same after a
/// restart, from the durable history.
@Suite("History: log, show, blame, list --at, undo", .timeLimit(.minutes(3)))
struct HistoryLogTests {
    /// `booksctl ARGS --json` output, one object per line.
    static func objects(_ h: DaemonHarness, _ args: [String]) async throws -> [[String: Any]] {
        let result = try await h.ctl(args + ["--json"])
        #expect(result.succeeded, "booksctl \(args): \(result)")
        return result.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    static func seqs(_ h: DaemonHarness, _ args: [String]) async throws -> [Int] {
        try await objects(h, args).compactMap { ($0["seq"] as? NSNumber)?.intValue }
    }

    @Test("a client write, a sed edit, a vim save and a NATS write: four attributed change sets, durable")
    func fourWritersThenTheHistory() async throws {
        let nats = NATSServerProcess.isInstalled ? try NATSServerProcess() : nil
        let h = try await DaemonHarness("history-log", books: Fixture.books(count: 3), start: false)
        defer { h.shutdown() }
        if let nats { h.extraDaemonArguments = ["--set", "nats_url=\(nats.url)"] }
        try await h.startDaemon()
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        // 1: a client write.
        #expect(try await h.ctl(["update", fixtureID(2), "--name", "Renamed"]).succeeded)
        // 2: a hand edit with sed.
        #expect(try await h.tools.run(["sed", "-i", "s/Book 3/Book Three/", h.file]).succeeded)
        #expect(await eventually(timeout: 10, interval: 0.05) { (try? await Self.seqs(h, ["log"]).count) == 2 })
        // 3: a vim save, with vim's swap file beside the file when it lands.
        let tmux = try await TmuxSession(tools: h.tools, command: "vim -u NONE -N books.txt")
        defer { tmux.kill() }
        try await tmux.waitForScreen(containing: "Frank Herbert")
        let swap = h.dir + "/.books.txt.swp"
        #expect(await eventually(timeout: 10, interval: 0.05) { TestFiles.exists(swap) }, "no swap file")
        let header = try #require(SwapFileHeader(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: swap)))))
        try await tmux.type(":%s/Frank Herbert/Frank HERBERT/")
        try await tmux.send("Enter")
        try await tmux.type(":w")
        try await tmux.send("Enter")
        #expect(await eventually(timeout: 10, interval: 0.05) { (try? await Self.seqs(h, ["log"]).count) == 3 })
        try await tmux.type(":q")
        try await tmux.send("Enter")
        // 4: a NATS write.
        if let nats {
            try await NATSFeedTests.waitForInitialSnapshot(nats)
            let remote = try NATSBooksClient(options: NATSConnectOptions(urls: [nats.url]))
            defer { remote.close() }
            _ = try await remote.insert([BookDraft(id: "nats-1", name: "Over NATS", author: "Remote")])
        }
        let count = nats == nil ? 3 : 4

        func check() async throws {
            let log = try await Self.objects(h, ["log"])
            #expect(log.count == count, "\(log)")
            guard log.count == count else { return }
            #expect(log.map { $0["source"] as? String } == ["client", "file", "file", "nats"].prefix(count).map { $0 })
            let client = log[0]["actor"] as? [String: Any]
            #expect(client?["user"] as? String == user && client?["program"] as? String == "booksctl", "\(log[0])")
            #expect((log[1]["actor"] as? [String: Any])?["editor"] as? String == "unknown", "\(log[1])")
            let vim = log[2]["actor"] as? [String: Any]
            #expect(vim?["user"] as? String == header.user, "\(log[2])")
            #expect((vim?["pid"] as? NSNumber)?.uint32Value == header.pid, "\(log[2])")
            #expect(vim?["editor"] as? String == "vim", "\(log[2])")
            if count == 4 { #expect((log[3]["actor"] as? [String: Any])?["via"] as? String == "nats", "\(log[3])") }
            #expect(try await Self.seqs(h, ["log", "--since", "-1m"]) == Array(1...count))
            #expect(try await Self.seqs(h, ["log", "-n", "1"]) == [count])
            #expect(try await Self.seqs(h, ["log", "--until", "-1h"]) == [])
            #expect(try await Self.seqs(h, ["log", "--id", fixtureID(2)]) == [1])
            let shown = try await Self.objects(h, ["show", "2"]).first
            let change = (shown?["changes"] as? [[String: Any]])?.first
            #expect(change?["name"] as? String == "Book Three" && change?["oldName"] as? String == "Book 3")
            let blame = try await Self.objects(h, ["blame", fixtureID(1)]).first
            #expect((blame?["seq"] as? NSNumber)?.intValue == 3 && blame?["change"] as? String == "updated")
            let past = try await h.ctl(["list", "--at", "1", "--json-array"])
            let books = try JSONDecoder().decode([ListedBook].self, from: Data(past.output.utf8))
            #expect(books.map(\.name) == ["Dune", "Renamed", "Book 3"], "\(past)")
            #expect(books.first?.author == "Frank Herbert")
        }
        try await check()
        #expect(h.daemon?.stop(grace: 5) == 0)
        try await h.startDaemon()
        try await check()

        // Undo: of the vim update, of the client update; a refused undo of a book changed since.
        #expect(try await h.ctl(["undo", "3"]).succeeded)
        #expect(await eventually(timeout: 5, interval: 0.05) { h.fileBooks[fixtureID(1)]?.author == "Frank Herbert" })
        #expect(try await h.ctl(["update", fixtureID(2), "--name", "Renamed Again"]).succeeded)
        let refused = try await h.ctl(["undo", "1"])
        #expect(refused.status == 6, "\(refused)")
        #expect(refused.output.contains("changed again since"), "\(refused)")
        #expect(try await h.ctl(["undo", "1", "--force"]).succeeded)
        #expect(await eventually(timeout: 5, interval: 0.05) { h.fileBooks[fixtureID(2)]?.name == "Book 2" })
        // Undo of an insert and of a delete.
        let added = try await h.ctl(["add", "Middlemarch", "George Eliot"])
        let addSeq = try await Self.seqs(h, ["log", "-n", "1"])
        #expect(added.succeeded)
        #expect(try await h.ctl(["undo", String(addSeq.first ?? 0)]).succeeded)
        #expect(await eventually(timeout: 5, interval: 0.05) { !h.fileText.contains("Middlemarch") })
        #expect(try await h.ctl(["delete", fixtureID(3)]).succeeded)
        let deleteSeq = try await Self.seqs(h, ["log", "-n", "1"])
        #expect(try await h.ctl(["undo", String(deleteSeq.first ?? 0)]).succeeded)
        #expect(await eventually(timeout: 5, interval: 0.05) { h.fileBooks[fixtureID(3)] != nil })
        let sources = try await Self.objects(h, ["log", "-n", "2"]).map { $0["source"] as? String }
        #expect(sources == ["client", "undo"])
        // Past what is kept: clear errors.
        let gone = try await h.ctl(["show", "999"])
        #expect(gone.status == 5 && gone.output.contains("no change set 999"), "\(gone)")
        let bad = try await h.ctl(["log", "--since", "last tuesday"])
        #expect(bad.status == 2 && bad.output.contains("hint: WHEN is"), "\(bad)")
    }
}

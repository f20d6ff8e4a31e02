import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Glibc
import Testing

/// The saved history's files changed by someone else while booksd runs (shortened, copied over),
/// or put back from an older copy while it was stopped: booksd keeps serving, and never continues
/// an epoch with sequence numbers it already issued for other content.
@Suite("Durable history: files changed behind booksd's back", .timeLimit(.minutes(3)))
struct HistoryTamperTests {
    static func row(_ n: Int) -> TestBook { TestBook(id: "\(700 + n)", name: "Row \(n)", author: "Writer") }

    /// How many times the log says what became of the saved history at a start.
    static func historyDecisions(_ h: DaemonHarness) -> Int {
        h.daemonLog(lastLines: 10_000).split(separator: "\n").filter {
            $0.contains("saved history restored") || $0.contains("new epoch: ")
        }.count
    }

    /// Appends `row(n)` by hand and expects it at `sub`.
    func append(_ n: Int, _ h: DaemonHarness, _ sub: Subscriber, _ what: String) async throws {
        let row = Self.row(n)
        try await h.tools.must("printf '\(row.id)|\(row.name)|\(row.author)\\n' >> books.txt")
        await sub.expectEvents([.insert(row)], what)
        #expect(h.daemon?.isRunning == true, "booksd died: \(what)\n\(h.daemonLog())")
    }

    @Test("published truncated, then the state copied over from a backup, while running: changes continue")
    func shortenedWhileRunning() async throws {
        let h = try await DaemonHarness("history-truncate", confirmationMs: 200)
        defer { h.shutdown() }
        let sub = try await h.subscribe()
        try await append(1, h, sub, "before")
        try await h.tools.must("cp -a .books.txt.history ../backup")
        try await append(2, h, sub, "after the backup")
        try await h.tools.must("truncate -s 0 .books.txt.history/published")
        try await append(3, h, sub, "after truncate -s 0 published")
        try await h.tools.must("cp ../backup/* .books.txt.history/")
        try await append(4, h, sub, "after cp backup/* over the state")
        let added = try await h.ctl(["add", "Client", "Writer"])
        #expect(added.succeeded, "\(added)")
        await sub.expectEvents([.insertNew(name: "Client", author: "Writer", source: "client")])
        #expect(h.daemon?.isRunning == true, "booksd died\n\(h.daemonLog())")
        let served = try await h.listedBooks()
        #expect(h.daemon?.stop() == 0)
        // A restart serves the same books: the same epoch, or a new one with its reason logged.
        let before = Self.historyDecisions(h)
        try await h.startDaemon()
        #expect(try await h.listedBooks() == served)
        #expect(Self.historyDecisions(h) == before + 1, "\(h.daemonLog())")
        let again = try await h.subscribe()
        try await append(5, h, again, "after the restart")
    }

    /// The size of the journal once it has grown past `size` (the record of the last change set is
    /// appended after its broadcast).
    func journalGrown(past size: Int, in state: String) async -> Int {
        var now = 0
        _ = await eventually(timeout: 10, interval: 0.02) {
            now = TestFiles.readBytes(state + "/journal")?.count ?? 0
            return now > size
        }
        return now
    }

    @Test(
        "an older copy of the state directory put back while stopped: a new epoch, and a subscriber resuming must resync"
    )
    func olderCopyPutBack() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|One|A", "b2|Two|B"])
        let state = daemon.directory + "/.books.txt.history"
        let writer = try await daemon.connect("writer")
        var journal = await journalGrown(past: 0, in: state)
        for k in 1...5 {
            _ = try await writer.update([BookPatch(id: "b1", name: "One \(k)")])
            journal = await journalGrown(past: journal, in: state)
            if k == 2 {
                let copied = try await ChildProcess.run(["cp", "-a", state, daemon.directory + "/copy"], timeout: 20)
                #expect(copied.succeeded, "\(copied)")
            }
        }
        let epoch = try #require(writer.helloPoint?.epoch)
        writer.close()
        #expect(daemon.stop() == 0)
        let restored = try await ChildProcess.run(
            ["sh", "-c", "rm -rf \"$1\" && cp -a \"$2\" \"$1\"", "sh", state, daemon.directory + "/copy"], timeout: 20)
        #expect(restored.succeeded, "\(restored)")
        try await daemon.start()
        #expect(
            daemon.log.contains(
                "new epoch: the saved state ends at seq 2 but seq 5 of its epoch was already handed out"),
            "\(daemon.log)")
        let again = try await daemon.connect("resumer")
        #expect(again.helloPoint?.epoch != epoch)
        let resumed = FeedRecorder(again.changes(from: ResumePoint(epoch: epoch, seq: 5)))
        #expect(
            await eventually(timeout: 10) {
                resumed.snapshot.contains { if case .resyncRequired = $0 { true } else { false } }
            }, "\(resumed.snapshot)")
        #expect(!resumed.changes.contains { $0.epoch == epoch }, "\(resumed.snapshot)")
        #expect(try await again.get(["b1"]).first?.book.name == "One 5")
        resumed.cancel()
        again.close()
        #expect(daemon.stop() == 0)
    }
}

import BooksClient
import BooksCore
import BooksTestSupport
import Testing

extension FeedTests {
    /// `changes()` writes its subscribe before it returns, so a write the program sends right
    /// after it comes after it on the connection and its change reaches the feed (a subscribe sent
    /// from a task of its own could go after the write, and the feed then began after the change).
    @Test("a write sent right after changes() returns reaches that feed, every time")
    func aWriteRightAfterChangesIsInTheFeed() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Frank Herbert"])
        defer { daemon.stop() }
        for round in 0..<10 {
            let client = try await daemon.connect()
            let recorder = FeedRecorder(client.changes(snapshot: false))
            let inserted = try await client.insert([BookDraft(name: "Round \(round)", author: "Tester")])
            let id = inserted[0].id
            await recorder.wait("the insert of round \(round)", timeout: .seconds(20)) { items in
                items.contains { item in
                    if case .change(let change) = item { return change.changes.inserted.contains { $0.id == id } }
                    return false
                }
            }
            client.close()
        }
    }
}

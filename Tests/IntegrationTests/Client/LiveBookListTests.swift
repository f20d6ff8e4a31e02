import BooksClient
import BooksPlatform
import BooksTestSupport
import Foundation
import Observation
import Testing

/// `LiveBookList` against a real `booksd`: the list equals the file after every edit, across a
/// daemon restart and a crash, and observation fires exactly when the result changes.
@Suite("LiveBookList against booksd")
@MainActor
struct LiveBookListTests {
    static let rows = (1...6).map { "b\($0)|Title \($0)|\($0 % 2 == 0 ? "Even" : "Odd")" }
    static let fast = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(200))

    /// What the list must show: `query` over the books in the file now.
    func expected(_ query: BookQuery, _ daemon: FeedDaemon) throws -> [Book] {
        query.apply(to: try daemon.fileBooks())
    }

    /// Waits until the list shows exactly the file's result (and is live); records an issue if not.
    func expectMatchesFile(
        _ list: LiveBookList, _ daemon: FeedDaemon, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let query = list.query
        let want = try expected(query, daemon)
        let ok = await list.wait(timeout: .seconds(15)) { $0.isLoaded && $0.connection == .live && $0.books == want }
        #expect(
            ok, "\(what): list \(list.books) (\(list.connection)), file says \(want)", sourceLocation: sourceLocation)
    }

    @Test("the list equals the file after each edit, after a restart and after a crash")
    func followsEditsAndRestarts() async throws {
        let daemon = try await FeedDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let list = LiveBookList(
            BookQuery(sort: BookSort(.name, ascending: false), limit: 4), socketPath: daemon.socket,
            backoff: Self.fast)
        defer { list.stop() }
        try await expectMatchesFile(list, daemon, "initial")
        #expect(list.books.count == 4)

        try daemon.handAppend("b7|Title 9|Odd")
        try await expectMatchesFile(list, daemon, "appended row at the top of the order")
        let client = try await daemon.connect("writer")
        _ = try await client.insert([BookDraft(name: "Title 99", author: "Even")])
        try await expectMatchesFile(list, daemon, "client insert")
        _ = try await client.update([BookPatch(id: "b7", name: "Title 0")])
        try await expectMatchesFile(list, daemon, "client rename out of the top 4")
        try await client.delete(["b6"])
        try await expectMatchesFile(list, daemon, "client delete")
        client.close()

        daemon.stop()
        let noticed = await list.wait { if case .reconnecting = $0.connection { true } else { false } }
        #expect(noticed, "connection while booksd is down: \(list.connection)")
        let before = list.books
        try daemon.handWrite(try daemon.readFile().replacingOccurrences(of: "Title 5", with: "Title 98"))
        #expect(list.books == before, "the list keeps its last books while disconnected")
        try await daemon.start()
        try await expectMatchesFile(list, daemon, "edit made while booksd was stopped, after its restart")

        daemon.crash()
        try daemon.handAppend("b8|Title 97|Odd")
        try await daemon.start()
        try await expectMatchesFile(list, daemon, "edit made after a crash (kill -9), after the restart")
    }

    @Test("observation fires when the result changes, and only then")
    func observationFiresOnResultChanges() async throws {
        let daemon = try await FeedDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let query = BookQuery(filter: BookFilter([BookCondition(.author, .equals, "Odd")]), sort: BookSort(.name))
        let list = LiveBookList(query, socketPath: daemon.socket, backoff: Self.fast)
        defer { list.stop() }
        try await expectMatchesFile(list, daemon, "initial")

        let observer = BooksObserver(list)
        let client = try await daemon.connect("writer")
        _ = try await client.update([BookPatch(id: "b2", name: "Not in the result")])  // an "Even" book
        _ = try await client.update([BookPatch(id: "b1", name: "Title 1, renamed")])
        try await expectMatchesFile(list, daemon, "after renaming an Odd book")
        #expect(observer.fired == 1, "books observed to change \(observer.fired) times for one change of the result")
        _ = try await client.insert([BookDraft(name: "Another", author: "Odd")])
        try await expectMatchesFile(list, daemon, "after inserting an Odd book")
        #expect(observer.fired == 2)
        client.close()
    }
}

/// Counts the changes of a list's `books` seen through `withObservationTracking` (counted as the
/// change happens, re-armed after each).
@MainActor
final class BooksObserver {
    let list: LiveBookList
    private let count = Locked(0)
    nonisolated var fired: Int { count.withLock { $0 } }

    init(_ list: LiveBookList) {
        self.list = list
        arm()
    }

    private func arm() {
        withObservationTracking {
            _ = list.books
        } onChange: { [weak self] in
            self?.count.withLock { $0 += 1 }
            Task { @MainActor in self?.arm() }
        }
    }
}

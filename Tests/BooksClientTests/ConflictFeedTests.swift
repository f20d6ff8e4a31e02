import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksClient

/// A feed that asks for conflicts: the `subscribe` request says so, `conflict` events become
/// `.conflict` items; `conflicts()` and `resolve(_:take:)` over the wire.
@Suite(.timeLimit(.minutes(1))) struct ConflictFeedTests {
    static let recorded = RecordedConflict(
        id: 3,
        conflict: MergeConflict(
            id: "b2", kind: .name, base: Book(id: "b2", name: "Old", author: "A"),
            mine: Book(id: "b2", name: "Vim Title", author: "A"), theirs: Book(id: "b2", name: "Client", author: "A")),
        seq: 9, baseSeq: 7, time: Date(timeIntervalSince1970: 1_764_633_600), who: "ann@host pid 42")

    static func conflictEvent(resolved: ConflictSide?) -> Event {
        var event = Event(event: .conflict, epoch: "E1", seq: 9)
        event.conflict = recorded
        event.resolved = resolved
        return event
    }

    /// A fake daemon: `subscribe` gets an empty snapshot then `events`; `conflicts` lists
    /// `recorded`; `resolve` succeeds.
    static func server(then events: [Event]) throws -> FakeServer {
        try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .subscribe:
                let head = [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 8)),
                    FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 8, books: [])),
                ]
                return .init(lines: head + events.map(FakeServer.event))
            case .conflicts:
                return .init(lines: [FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 9, conflicts: [recorded]))])
            case .resolve:
                return .init(lines: [FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 10, books: []))])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
    }

    @Test func aFeedAskingForConflictsGetsThemAsItems() async throws {
        let server = try Self.server(then: [Self.conflictEvent(resolved: nil), Self.conflictEvent(resolved: .theirs)])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(try await client.conflicts() == [Self.recorded])
        try await client.resolve(3, take: .theirs)
        let resolve = server.requests.first { $0.request.op == .resolve }?.request
        #expect(resolve?.conflict == 3 && resolve?.take == .theirs)
        var notices: [ConflictNotice] = []
        for try await item in client.changes(conflicts: true) {
            if case .conflict(let notice) = item { notices.append(notice) }
            if notices.count == 2 { break }
        }
        #expect(
            notices == [
                ConflictNotice(epoch: "E1", seq: 9, conflict: Self.recorded),
                ConflictNotice(epoch: "E1", seq: 9, conflict: Self.recorded, resolved: .theirs),
            ])
        #expect(server.requests.first { $0.request.op == .subscribe }?.request.conflicts == true)
    }

    @Test func aPlainFeedDoesNotAskAndAnEventWithoutItsConflictIsAHeartbeat() async throws {
        let server = try Self.server(then: [])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        for try await _ in client.changes() { break }
        #expect(server.requests.first { $0.request.op == .subscribe }?.request.conflicts == nil)
        #expect(FeedItem(Event(event: .conflict, epoch: "E1", seq: 4)) == .heartbeat(ResumePoint(epoch: "E1", seq: 4)))
        let item = FeedItem(Self.conflictEvent(resolved: .mine))
        #expect(item.description == "conflict 3 settled (mine) at 9: book b2, name", "\(item)")
    }

    @Test func aChangeSaysWhichBaseItMergedAndWhichWritesItReverted() {
        var merged = Event(event: .change, epoch: "E1", seq: 9, source: .file)
        merged.updated = [
            BookUpdate(old: Book(id: "b2", name: "Old", author: "A"), new: Book(id: "b2", name: "New", author: "A"))
        ]
        merged.merged = Event.MergedFrom(base: 7)
        var reverting = Event(event: .change, epoch: "E1", seq: 10, source: .file)
        reverting.reverts = [8, 9]
        guard case .change(let m) = FeedItem(merged), case .change(let r) = FeedItem(reverting),
            case .change(let plain) = FeedItem(Event(event: .change, epoch: "E1", seq: 11, source: .client))
        else {
            Issue.record("not change items")
            return
        }
        #expect(m.mergedBase == 7 && m.reverts.isEmpty)
        #expect(r.mergedBase == nil && r.reverts == [8, 9])
        #expect(plain.mergedBase == nil && plain.reverts.isEmpty)
    }
}

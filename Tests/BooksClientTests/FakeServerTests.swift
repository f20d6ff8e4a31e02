import BooksCore
import BooksPlatform
import BooksProtocol
import Testing

@testable import BooksClient

#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(1))) struct FakeServerTests {
    static let a = Book(id: "a", name: "Dune", author: "Herbert")
    static let b = Book(id: "b", name: "Emma", author: "Austen")
    static let c = Book(id: "c", name: "Ulysses", author: "Joyce")

    @Test func requestsRepliesAndDaemonErrors() async throws {
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .list:
                return .init(lines: [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 1, books: [Self.a, Self.b], total: 2))
                ])
            case .get:
                return .init(lines: [FakeServer.fail(request, ProtocolError(.notFound, "no book \(request.ids ?? [])"))]
                )
            case .update:
                return .init(lines: [
                    FakeServer.fail(request, ProtocolError(.conflict, "changed", current: Self.a, currentVersion: 9))
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(client.server == "fake 0")
        #expect(client.helloPoint == ResumePoint(epoch: "E1", seq: 1))

        // Pipelined: both in flight at once, matched by id.
        async let page = client.list(BookQuery(filter: BookFilter([BookCondition(.name, .containsIgnoringCase, "e")])))
        async let pong = client.ping()
        let (listed, _) = try await (page, pong)
        #expect(listed == BookPage(books: [Self.a, Self.b], total: 2, epoch: "E1", seq: 1))

        await #expect(throws: BooksClientError.daemon(ProtocolError(.notFound, "no book [\"zz\"]"))) {
            try await client.get(["zz"])
        }
        do {
            _ = try await client.update([BookPatch(id: "a", name: "X", expectedVersion: 3)])
            Issue.record("expected a conflict")
        } catch {
            #expect(error.daemonCode == .conflict)
            if case .daemon(let detail) = error { #expect(detail.current == Self.a && detail.currentVersion == 9) }
        }
        let hello = server.requests.first?.request
        #expect(
            hello?.op == .hello && hello?.id == "1" && hello?.version == ProtocolVersion.current
                && hello?.client == "booksctl")
        let list = server.requests.first { $0.request.op == .list }?.request
        #expect(list?.filter == BookFilter([BookCondition(.name, .containsIgnoringCase, "e")]) && list?.sort == nil)
    }

    @Test func cannotConnectCarriesErrno() async {
        do {
            _ = try await BooksClient.connect(socketPath: "/tmp/definitely-not-there-\(getpid()).sock")
            Issue.record("expected failure")
        } catch {
            #expect(error == .cannotConnect(path: "/tmp/definitely-not-there-\(getpid()).sock", errno: ENOENT))
            #expect(error.description.contains("booksd --file books.txt"))
        }
    }

    /// Connection 0: snapshot at 1, a change at 2, then the "daemon" dies. Connection 1: the client
    /// must resume from (E1, 2); the server replays seq 2 (a duplicate), then says resync-required and
    /// sends a snapshot at 5 in which a was updated, b deleted and c inserted.
    /// A fake daemon: the first connection's `subscribe` is answered with `first`'s lines, then
    /// the connection closes; later connections get `later`'s lines.
    static func reconnectingServer(
        first: @escaping @Sendable (Request) -> [String],
        later: @escaping @Sendable (Request) -> [String]
    ) throws -> FakeServer {
        try FakeServer { connection, request in
            switch (connection, request.op) {
            case (_, .hello): return .init(lines: [FakeServer.hello(request)])
            case (0, .subscribe): return .init(lines: first(request), close: true)
            case (_, .subscribe): return .init(lines: later(request))
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
    }

    @Test func resilientSubscriptionResumesAndDiffs() async throws {
        let a2 = Book(id: "a", name: "Dune", author: "Frank Herbert")
        let server = try Self.reconnectingServer(
            first: { request in
                [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 1)),
                    FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 1, books: [Self.a])),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 2, source: .client, inserted: [Self.b])),
                ]
            },
            later: { request in
                [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 5)),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 2, source: .client, inserted: [Self.b])),
                    FakeServer.event(Event(event: .resyncRequired, epoch: "E1", seq: 5, reason: "trimmed")),
                    FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 5, books: [a2, Self.c])),
                ]
            })
        defer { server.stop() }
        let subscription = ResilientSubscription(
            socketPath: server.path,
            backoff: ReconnectBackoff(initial: .milliseconds(10), maximum: .milliseconds(50)))
        var updates: [MirrorUpdate] = []
        for try await update in subscription.updates() {
            updates.append(update)
            if updates.count == 2 { break }
        }
        #expect(
            updates[0]
                == MirrorUpdate(
                    epoch: "E1", seq: 2, source: .client, time: nil, origin: .live,
                    changes: ChangeSet(inserted: [Self.b])))
        #expect(
            updates[1]
                == MirrorUpdate(
                    epoch: "E1", seq: 5, source: nil, time: nil, origin: .resync,
                    changes: ChangeSet(
                        inserted: [Self.c], updated: [BookUpdate(old: Self.a, new: a2)],
                        deleted: [Self.b])))
        let subscribes = server.requests.filter { $0.request.op == .subscribe }
        #expect(subscribes.count == 2)
        #expect(subscribes.first?.request.resume == nil)
        #expect(subscribes.last?.request.resume == ResumePoint(epoch: "E1", seq: 2))
    }

    /// `forEachUpdate` hands the same updates to its callback (on the reader thread), across a
    /// reconnection, and returns when the calling task is cancelled.
    @Test func forEachUpdateDeliversInOrderAcrossReconnections() async throws {
        let server = try Self.reconnectingServer(
            first: { request in
                [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 1)),
                    FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 1, books: [Self.a])),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 2, source: .file, inserted: [Self.b])),
                ]
            },
            later: { request in
                [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 3)),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 2, source: .file, inserted: [Self.b])),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 3, source: .client, deleted: [Self.a])),
                ]
            })
        defer { server.stop() }
        let subscription = ResilientSubscription(
            socketPath: server.path,
            backoff: ReconnectBackoff(initial: .milliseconds(10), maximum: .milliseconds(50)))
        let seen = Locked<[MirrorUpdate]>([])
        let consumer = Task { try await subscription.forEachUpdate { update in seen.withLock { $0.append(update) } } }
        for _ in 0..<500 where seen.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        consumer.cancel()
        try await consumer.value
        let updates = seen.withLock { $0 }
        #expect(updates.map(\.seq) == [2, 3], "the replayed seq 2 is not reported twice")
        #expect(updates.first?.changes == ChangeSet(inserted: [Self.b]))
        #expect(updates.last?.changes == ChangeSet(deleted: [Self.a]))
    }

    @Test func liveQueryOverTheWire() async throws {
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .subscribe:
                return .init(lines: [
                    FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 1)),
                    FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 1, books: [Self.a, Self.b])),
                    FakeServer.event(Event(event: .heartbeat, epoch: "E1", seq: 1)),
                    FakeServer.event(Event(event: .change, epoch: "E1", seq: 2, source: .file, inserted: [Self.c])),
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { server.stop() }
        let stream = ResilientSubscription.liveQuery(socketPath: server.path, query: BookQuery(sort: BookSort(.name)))
        var results: [[Book]] = []
        for try await books in stream {
            results.append(books)
            if results.count == 2 { break }
        }
        #expect(results == [[Self.a, Self.b], [Self.a, Self.b, Self.c]])
    }

    /// The daemon goes away entirely (socket removed) and comes back later with a new epoch:
    /// the subscription retries with back-off, resumes, and reports the difference once.
    @Test func resilientSubscriptionWaitsForTheDaemonToComeBack() async throws {
        let first = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .subscribe:
                return .init(
                    lines: [
                        FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 7)),
                        FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 7, books: [Self.a, Self.b])),
                        FakeServer.event(Event(event: .shutdown, epoch: "E1", seq: 7, reason: "restart")),
                    ], close: true)
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        let path = first.path
        let statuses = Locked<[SubscriptionStatus]>([])
        let subscription = ResilientSubscription(
            socketPath: path, backoff: ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(80)),
            onStatus: { status in statuses.withLock { $0.append(status) } })
        let stream = subscription.updates()
        // Stop the first daemon only once the subscription is established (a loaded machine may
        // take longer than any fixed pause).
        for _ in 0..<500 where !first.requests.contains(where: { $0.request.op == .subscribe }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(50))
        first.stop()
        // Several failed attempts (no socket) before the daemon comes back: waited for, not timed
        // (a loaded machine may make fewer attempts in any fixed pause).
        let disconnects = {
            statuses.withLock { $0.filter { if case .disconnected = $0 { return true } else { return false } }.count }
        }
        for _ in 0..<500 where disconnects() < 2 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let second = try FakeServer(path: path) { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request, epoch: "E2", seq: 1)])
            case .subscribe:
                return .init(lines: [
                    FakeServer.ok(request, ReplyResult(epoch: "E2", seq: 1)),
                    FakeServer.event(Event(event: .resyncRequired, epoch: "E2", seq: 1, reason: "epoch changed")),
                    FakeServer.event(Event(event: .snapshot, epoch: "E2", seq: 1, books: [Self.b])),
                    FakeServer.event(Event(event: .change, epoch: "E2", seq: 2, source: .file, inserted: [Self.c])),
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { second.stop() }
        var updates: [MirrorUpdate] = []
        for try await update in stream {
            updates.append(update)
            if updates.count == 2 { break }
        }
        #expect(updates.map(\.changes) == [ChangeSet(deleted: [Self.a]), ChangeSet(inserted: [Self.c])])
        #expect(updates.map(\.origin) == [.resync, .live])
        #expect(
            second.requests.first { $0.request.op == .subscribe }?.request.resume == ResumePoint(epoch: "E1", seq: 7))
        let log = statuses.withLock { $0 }
        #expect(log.filter { if case .disconnected = $0 { return true } else { return false } }.count >= 2)
        #expect(log.contains(.resyncRequired(reason: "epoch changed")))
    }
}

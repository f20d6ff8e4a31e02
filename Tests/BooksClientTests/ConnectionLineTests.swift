import BooksCore
import BooksProtocol
import FoundationEssentials
import Synchronization
import Testing

@testable import BooksClient

#if canImport(Glibc)
import Glibc
#endif

/// How the connection frames and decodes what the daemon sends: bounded lines (`LineFramer`),
/// typed errors for unreadable or over-long lines, and the named reader thread.
@Suite(.timeLimit(.minutes(1))) struct ConnectionLineTests {
    static let books = (0..<20).map { Book(id: "id-\($0)", name: "A rather long book name \($0)", author: "Author") }

    /// A fake daemon that answers `hello` normally and `list` with `listLines`.
    static func server(listLines: [String], subscribeLines: [String] = []) throws -> FakeServer {
        try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .list: return .init(lines: listLines.map { $0.replacing("$ID", with: request.id) })
            case .subscribe:
                return .init(lines: [FakeServer.ok(request, ReplyResult(epoch: "E1", seq: 1))] + subscribeLines)
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
    }

    static func listReply(_ books: [Book]) -> String {
        FakeServer.encode(Reply.success("$ID", ReplyResult(epoch: "E1", seq: 1, books: books, total: books.count)))
    }

    @Test func lineLongerThanTheLimitEndsTheConnectionWithATypedError() async throws {
        let server = try Self.server(listLines: [Self.listReply(Self.books)])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path, maxLineLength: 512)
        defer { client.close() }
        #expect(client.maxLineLength == 512)
        do {
            _ = try await client.list()
            Issue.record("expected the over-long reply to fail")
        } catch {
            guard case .protocolError(let detail) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(detail.code == .tooLarge)
            #expect(detail.message.contains("512 bytes"))
            #expect(error.isTransient == false, "reconnecting would meet the same line")
        }
        #expect(client.isClosed)
    }

    @Test func lineWithinTheLimitIsAccepted() async throws {
        let line = Self.listReply(Self.books)
        let server = try Self.server(listLines: [line])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path, maxLineLength: line.utf8.count)
        defer { client.close() }
        #expect(try await client.list().books == Self.books)
        #expect(BooksClient.defaultMaxLineLength == 1 << 30)
    }

    @Test func overLongSnapshotEndsTheFeedAndTheResilientSubscription() async throws {
        let snapshot = FakeServer.event(Event(event: .snapshot, epoch: "E1", seq: 1, books: Self.books))
        let server = try Self.server(listLines: [], subscribeLines: [snapshot])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path, maxLineLength: 512)
        defer { client.close() }
        await #expect(throws: BooksClientError.self) {
            for try await _ in client.changes() {}
        }

        let subscription = ResilientSubscription(
            socketPath: server.path, initial: true,
            backoff: ReconnectBackoff(initial: .milliseconds(10), maximum: .milliseconds(20)),
            maxLineLength: 512)
        do {
            try await subscription.forEachUpdate { _ in }
            Issue.record("expected forEachUpdate to throw")
        } catch {
            // Typed: forEachUpdate throws BooksClientError only.
            #expect(error.daemonCode == nil)
            if case .protocolError(let detail) = error {
                #expect(detail.code == .tooLarge)
            } else {
                Issue.record("got \(error)")
            }
        }
        let subscribes = server.requests.filter { $0.request.op == .subscribe }.count
        #expect(subscribes == 2, "one per subscription: a too-long line is not retried")
    }

    @Test func unreadableLineFailsPendingCallsWithProtocolError() async throws {
        let server = try Self.server(listLines: ["{\"id\": not json"])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        do {
            _ = try await client.list()
            Issue.record("expected failure")
        } catch {
            guard case .protocolError(let detail) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(detail.code == .badRequest)
            #expect(detail.message.hasPrefix("unreadable line from daemon (the line is not JSON"), "\(detail.message)")
            #expect(detail.message.hasSuffix("{\"id\": not json"))
        }
    }

    @Test func blankLinesAndCRLFAreTolerated() async throws {
        let server = try Self.server(listLines: [
            "", "  ", "\t \t", "\r", " \r", Self.listReply([Self.books[0]]) + "\r",
        ])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(try await client.list().books == [Self.books[0]])
        #expect(try await client.list().books == [Self.books[0]], "the connection is still usable")
    }

    @Test func readerRunsOnANamedThread() async throws {
        let server = try Self.server(listLines: [])
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(Self.threadNames().contains(SocketConnection.readerThreadName))
    }

    /// The names of this process's threads, from `/proc/self/task/*/comm`.
    static func threadNames() -> [String] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard tid.first?.isNumber == true, let file = fopen("/proc/self/task/\(tid)/comm", "r") else { continue }
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, 64, file) != nil {
                let bytes = buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
                names.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return names
    }
}

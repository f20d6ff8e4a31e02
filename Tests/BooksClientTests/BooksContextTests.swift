import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import Testing

@testable import BooksClient

/// `BooksContext` over a socket to a scripted fake daemon: the requests it sends and how it
/// reads the replies.
@Suite(.timeLimit(.minutes(1))) struct BooksContextTests {
    static let a = Book(id: "a", name: "Dune", author: "Herbert")
    static let b = Book(id: "b", name: "Emma", author: "Austen")

    @Test func aFetchRetriesABookDeletedBetweenListAndGetAndSaveSendsTheFetchedVersions() async throws {
        let lists = Locked(0)
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .list:
                let first = lists.withLock { n in
                    n += 1
                    return n == 1
                }
                let books = first ? [Self.a, Self.b] : [Self.a]
                return .init(lines: [
                    FakeServer.ok(request, ReplyResult(epoch: "E", seq: 3, books: books, total: books.count))
                ])
            case .get where request.ids?.contains("b") == true:
                return .init(lines: [FakeServer.fail(request, ProtocolError(.notFound, "no book with id b"))])
            case .get:
                return .init(lines: [FakeServer.ok(request, ReplyResult(books: [Self.a], versions: [3]))])
            case .save:
                let permanent = Book(id: "P1", name: "Walden", author: "Thoreau")
                let updated = Book(id: "a", name: "Dune", author: "Frank Herbert")
                return .init(lines: [
                    FakeServer.ok(
                        request,
                        ReplyResult(
                            epoch: "E", seq: 4, books: [permanent, updated], versions: [4, 4],
                            remap: [request.inserted?.first?.tempId ?? "": "P1"]))
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        let context = BooksContext(client)
        #expect(try await context.fetch() == [Self.a])
        #expect(lists.withLock { $0 } == 2, "the list was asked again after the not-found")

        let temp = context.insert(name: "Walden", author: "Thoreau")
        try context.update("a", author: "Frank Herbert")
        #expect(try await context.save() == [temp: "P1"])
        #expect(!context.hasChanges)
        let save = try #require(server.requests.first { $0.request.op == .save }?.request)
        #expect(save.inserted == [BookInsertion(tempId: temp, name: "Walden", author: "Thoreau")])
        #expect(save.updated == [BookPatch(id: "a", author: "Frank Herbert", expectedVersion: 3)])
        #expect(save.deleted == nil)
        #expect(try await context.save() == [:], "nothing left to save: no request")
        #expect(server.requests.filter { $0.request.op == .save }.count == 1)
    }

    @Test func aRefusedSaveIsATypedConflictAndKeepsTheChanges() async throws {
        let conflict = BookConflict(
            id: "a", current: Self.b, currentVersion: 8, message: "book a is at version 8, not 3")
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .list: return .init(lines: [FakeServer.ok(request, ReplyResult(books: [Self.a], total: 1))])
            case .get: return .init(lines: [FakeServer.ok(request, ReplyResult(books: [Self.a], versions: [3]))])
            default:
                return .init(lines: [
                    FakeServer.fail(request, ProtocolError(.conflict, "the save conflicts", conflicts: [conflict]))
                ])
            }
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        let context = BooksContext(client)
        _ = try await context.fetch()
        try context.delete("a")
        do {
            try await context.save()
            Issue.record("the save was accepted")
        } catch {
            #expect(error == .conflict([conflict]))
        }
        #expect(context.hasChanges)
        #expect(try await context.fetch().isEmpty, "the unsaved delete is still seen")
    }

    @Test func autosaveSavesPendingChangesUntilCancelled() async throws {
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello: return .init(lines: [FakeServer.hello(request)])
            case .save:
                let id = request.inserted?.first?.tempId ?? ""
                let book = Book(id: "P-" + id, name: request.inserted?.first?.name ?? "", author: "x")
                return .init(lines: [
                    FakeServer.ok(
                        request, ReplyResult(epoch: "E", seq: 1, books: [book], versions: [1], remap: [id: book.id]))
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        let context = BooksContext(client)
        let saver = context.autosave(every: .milliseconds(10))
        context.insert(name: "First", author: "x")
        #expect(await eventually(timeout: 5) { !context.hasChanges }, "the autosave saved the insert")
        saver.cancel()
        _ = await saver.value
        context.insert(name: "Second", author: "x")
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.hasChanges, "no save after the autosave was cancelled")
        #expect(server.requests.filter { $0.request.op == .save }.map { $0.request.inserted?.first?.name } == ["First"])
    }
}

import BooksCore
import BooksProtocol
import Testing

@testable import BooksClient

/// The client side of named stores against a scripted daemon: the version fallback for daemons
/// older than stores, store-scoped requests, the store list.
@Suite(.timeLimit(.minutes(1))) struct StoresClientTests {
    @Test func aDaemonThatRefusesVersionTwoIsSpokenToInVersionOne() async throws {
        let server = try FakeServer { _, request in
            guard request.op == .hello else { return .init(lines: [FakeServer.ok(request)]) }
            guard request.version == 1 else {
                let refusal = ProtocolError(.unsupportedVersion, "protocol version 2 is not supported")
                return .init(lines: [FakeServer.fail(request, refusal)], close: true)
            }
            return .init(lines: [FakeServer.hello(request)])
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(client.protocolVersion == 1)
        #expect(server.requests.filter { $0.1.op == .hello }.map { $0.1.version } == [2, 1])
        // The version-1 connection serves requests.
        _ = try await client.ping()
        #expect(server.requests.last?.1.op == .ping)
    }

    @Test func storeHandlesNameTheirStoreOnEveryRequest() async throws {
        let info = StoreInfo(
            name: "fiction", path: "/b/fiction.txt", format: "text", state: "present", bookCount: 1, badLines: 0,
            epoch: "E", seq: 4)
        let server = try FakeServer { _, request in
            switch request.op {
            case .hello:
                return .init(lines: [
                    FakeServer.ok(request, ReplyResult(protocolVersion: 2, server: "fake 0", epoch: "E", seq: 1))
                ])
            case .stores: return .init(lines: [FakeServer.ok(request, ReplyResult(stores: [info]))])
            case .get where request.store != "fiction":
                return .init(lines: [FakeServer.fail(request, ProtocolError(.unknownStore, "no", stores: ["fiction"]))])
            case .get:
                return .init(lines: [
                    FakeServer.ok(
                        request, ReplyResult(books: [Book(id: "7", name: "Emma", author: "Austen")], versions: [4]))
                ])
            default: return .init(lines: [FakeServer.ok(request)])
            }
        }
        defer { server.stop() }
        let client = try await BooksClient.connect(socketPath: server.path)
        defer { client.close() }
        #expect(client.protocolVersion == 2)
        #expect(try await client.stores() == [info])
        let got = try await client.store("fiction").get(["7"])
        #expect(got.map(\.version) == [4])
        await #expect(throws: BooksClientError.daemon(ProtocolError(.unknownStore, "no", stores: ["fiction"]))) {
            try await client.store("other").get(["7"])
        }
        #expect(server.requests.filter { $0.1.op == .get }.map { $0.1.store } == ["fiction", "other"])
    }
}

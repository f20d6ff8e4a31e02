import BooksCore
import BooksProtocol
import FoundationEssentials
import Glibc
import Testing
@testable import BooksDaemon

/// Issue 16's limits over real sockets: connections per uid.
extension SocketServerTests {
    @Test func connectionsPerUIDAreCapped() throws {
        let dir = TemporaryDirectory()
        // Every test connection comes from this process's uid, exempt by default: lift that.
        let server = try makeServer(dir) { $0.maxClientsPerUID = 2; $0.uidLimitExemptions = [] }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let a = try #require(TestClient(path: dir.socketPath))
        let b = try #require(TestClient(path: dir.socketPath))
        #expect(a.hello()?.ok == true)
        #expect(b.hello()?.ok == true)
        let c = try #require(TestClient(path: dir.socketPath))
        let refused = c.readReply()
        #expect(refused?.error?.code == .limitExceeded)
        #expect(refused?.error?.message == "too many connections from uid \(geteuid()) (max_clients_per_uid 2)")
        #expect(c.isClosedByServer())
        #expect(eventually { server.statistics.rejected == 1 && server.statistics.rejectedPerUID == 1 })
        // A slot of this uid frees up when one of its clients leaves.
        _ = consume a
        #expect(eventually { server.statistics.clients == 1 })
        let d = try #require(TestClient(path: dir.socketPath))
        #expect(d.hello()?.ok == true)
    }

    @Test func exemptUIDsAreNotCappedPerUID() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxClientsPerUID = 1 } // this process's euid is exempt
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let clients = (0..<3).compactMap { _ in TestClient(path: dir.socketPath) }
        #expect(clients.count == 3)
        for client in clients { #expect(client.hello()?.ok == true) }
        #expect(server.statistics.rejected == 0)
    }
}

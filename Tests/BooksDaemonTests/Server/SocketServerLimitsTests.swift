import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

@testable import BooksDaemon

/// The daemon's limits over real sockets: connections per uid, the idle timeout, the budget for
/// unfinished lines.
extension SocketServerTests {
    @Test func connectionsPerUIDAreCapped() throws {
        let dir = try TemporaryDirectory()
        // Every test connection comes from this process's uid, exempt by default: lift that.
        let server = try makeServer(dir) {
            $0.maxClientsPerUID = 2
            $0.uidLimitExemptions = []
        }
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
        #expect(
            eventuallyBlocking(timeout: 5) {
                server.statistics.rejected == 1 && server.statistics.rejectedPerUID == 1
            })
        // A slot of this uid frees up when one of its clients leaves.
        _ = consume a
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.clients == 1 })
        let d = try #require(TestClient(path: dir.socketPath))
        #expect(d.hello()?.ok == true)
    }

    @Test func oneUIDHoldsAtMostHalfOfMaxClients() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) {
            $0.maxClients = 4
            $0.maxClientsPerUID = 64
            $0.uidLimitExemptions = []
        }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let held = (0..<2).compactMap { _ in TestClient(path: dir.socketPath) }
        for client in held { #expect(client.hello()?.ok == true) }
        let c = try #require(TestClient(path: dir.socketPath))
        let refused = c.readReply()
        #expect(refused?.error?.code == .limitExceeded)
        #expect(
            refused?.error?.message
                == "too many connections from uid \(geteuid()) (max_clients_per_uid 64, at most half of max_clients 4: 2)"
        )
        #expect(c.isClosedByServer())
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.rejectedPerUID == 1 })
    }

    @Test func exemptUIDsAreNotCappedPerUID() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxClientsPerUID = 1 }  // this process's euid is exempt
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let clients = (0..<3).compactMap { _ in TestClient(path: dir.socketPath) }
        #expect(clients.count == 3)
        for client in clients { #expect(client.hello()?.ok == true) }
        #expect(server.statistics.rejected == 0)
    }

    @Test func idleUnsubscribedConnectionsAreClosed() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.idleTimeout = .milliseconds(300) }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let idle = try #require(TestClient(path: dir.socketPath, timeoutSeconds: 3))
        let subscriber = try #require(TestClient(path: dir.socketPath))
        let chatty = try #require(TestClient(path: dir.socketPath))
        #expect(idle.hello()?.ok == true)
        #expect(chatty.hello()?.ok == true)
        #expect(subscriber.hello()?.ok == true)
        subscriber.send(#"{"id":"s","op":"subscribe"}"#)
        #expect(subscriber.readReply()?.ok == true)
        #expect(subscriber.readEvent()?.event == .snapshot)
        // Traffic keeps a connection open (the chatty one pings every 100 ms for 1.2 s); the
        // silent one goes between one and two timeouts after its hello reply.
        for k in 0..<12 {
            MonotonicClock.sleep(seconds: 0.1)
            if k == 0 { #expect(server.statistics.idleClosed == 0, "closed before the timeout") }
            chatty.send(#"{"id":"c\#(k)","op":"ping"}"#)
            #expect(chatty.readReply()?.id == "c\(k)")
        }
        let notice = idle.readReply()
        #expect(notice?.error?.code == .limitExceeded)
        #expect(notice?.error?.message.hasPrefix("idle for 300 ms without a subscription") == true)
        #expect(idle.isClosedByServer())
        #expect(server.statistics.idleClosed == 1)
        // A subscriber is never idle-closed.
        subscriber.send(#"{"id":"p","op":"ping"}"#)
        #expect(subscriber.readReply()?.id == "p")
        #expect(server.statistics.idleClosed == 1)
    }

    @Test func unfinishedLinesShareABudgetAndTheLargestIsClosed() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.partialLineBudgetBytes = 100_000 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let largest = try #require(TestClient(path: dir.socketPath, timeoutSeconds: 3))
        let smaller = try #require(TestClient(path: dir.socketPath))
        let last = try #require(TestClient(path: dir.socketPath))
        // Leading blanks are valid JSON whitespace: each is a slowly arriving hello.
        let hello = Array(#"{"id":"h","op":"hello","version":1}"#.utf8) + [10]
        largest.send([UInt8](repeating: 0x20, count: 60_000))
        MonotonicClock.sleep(seconds: 0.15)
        smaller.send([UInt8](repeating: 0x20, count: 30_000))
        MonotonicClock.sleep(seconds: 0.15)
        #expect(server.statistics.violations == 0, "90,000 bytes fit the budget")
        last.send([UInt8](repeating: 0x20, count: 20_000))  // 110,000 > 100,000
        let refused = largest.readReply()
        #expect(refused?.error?.code == .tooLarge)
        #expect(largest.isClosedByServer())
        #expect(
            eventuallyBlocking(timeout: 5) {
                server.statistics.lineBudgetClosed == 1 && server.statistics.violations == 1
            })
        // The others keep their partial lines and finish them.
        smaller.send(hello)
        #expect(smaller.readReply()?.id == "h")
        last.send(hello)
        #expect(last.readReply()?.id == "h")
    }
}

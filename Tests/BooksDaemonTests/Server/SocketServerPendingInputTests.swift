import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import Dispatch
import Glibc
import Testing

@testable import BooksDaemon

/// `stopAccepting` and `deliverPendingInput`: what the daemon calls while stopping, so requests
/// already sent are handed over before the server shuts down.
extension SocketServerTests {
    /// A delegate that records requests and never answers them.
    final class MuteDelegate: SocketServerDelegate {
        let received = Locked<[Request]>([])
        func server(
            _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
            peer: PeerCredentials
        ) {
            received.withLock { $0.append(request) }
        }
        func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) { ("test-epoch", 0) }
        func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {}
    }

    /// A delegate that answers every request 20 ms later from another thread, as the
    /// reconciler's queue does.
    final class SlowDelegate: SocketServerDelegate {
        let received = Locked<[Request]>([])
        private let queue = DispatchQueue(label: "slow-delegate")
        func server(
            _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
            peer: PeerCredentials
        ) {
            received.withLock { $0.append(request) }
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) {
                server.send(.success(request.id, ReplyResult(epoch: "test-epoch", seq: 0)), to: connection)
            }
        }
        func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) { ("test-epoch", 0) }
        func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {}
    }

    private func pings(_ prefix: String, _ count: Int) -> String {
        (1...count).map { #"{"id":"\#(prefix)\#($0)","op":"ping"}"# }.joined(separator: "\n")
    }

    @Test func deliverPendingInputHandsOverEverythingAlreadySent() throws {
        let dir = try TemporaryDirectory()
        let delegate = SlowDelegate()
        // Two requests at most unanswered: the rest is read only as (slow) answers are queued.
        var configuration = SocketServerConfiguration(path: dir.socketPath)
        configuration.maxPendingRequests = 2
        let server = try SocketServer(configuration: configuration)
        try server.start(delegate: delegate)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let early = try #require(TestClient(path: dir.socketPath))
        #expect(early.hello()?.ok == true)
        #expect(early.send(pings("a", 6)))
        // Connected and sent, possibly not even accepted yet.
        let late = try #require(TestClient(path: dir.socketPath))
        #expect(late.send(#"{"id":"h","op":"hello","version":1}"# + "\n" + pings("b", 3)))
        let partial = try #require(TestClient(path: dir.socketPath))
        #expect(partial.hello()?.ok == true)
        #expect(partial.send(Array(#"{"id":"never","op":"pi"#.utf8)))  // no newline: not a request

        server.stopAccepting()
        let delivered = server.deliverPendingInput(timeout: .seconds(5))
        #expect(delivered)
        let ids = Set(delegate.received.withLock { $0.map(\.id) })
        #expect(ids == Set((1...6).map { "a\($0)" } + (1...3).map { "b\($0)" }))
        // No longer accepting; existing connections are still served.
        #expect(TestClient(path: dir.socketPath) == nil)
        for i in 1...6 { #expect(early.readReply()?.id == "a\(i)") }
        #expect(late.readReply()?.id == "h")
        for i in 1...3 { #expect(late.readReply()?.id == "b\(i)") }
    }

    @Test func deliverPendingInputIsBoundedByItsTimeout() throws {
        let dir = try TemporaryDirectory()
        let delegate = MuteDelegate()
        var configuration = SocketServerConfiguration(path: dir.socketPath)
        configuration.maxPendingRequests = 1
        let server = try SocketServer(configuration: configuration)
        try server.start(delegate: delegate)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        #expect(client.send(pings("p", 3)))
        let start = ContinuousClock().now
        // Nobody answers the first ping, so flow control holds the other two back.
        let delivered = server.deliverPendingInput(timeout: .milliseconds(300))
        #expect(!delivered)
        #expect(ContinuousClock().now - start < .seconds(3))
        #expect(delegate.received.withLock { $0.map(\.id) } == ["p1"])
    }

    @Test func deliverPendingInputWithoutPendingInputOrServer() throws {
        let dir = try TemporaryDirectory()
        let server = try SocketServer(configuration: SocketServerConfiguration(path: dir.socketPath))
        let notStarted = server.deliverPendingInput(timeout: .milliseconds(100))
        #expect(!notStarted, "no server thread: nothing was handed over")
        try server.start(delegate: TestDelegate())
        let idle = try #require(TestClient(path: dir.socketPath))
        #expect(idle.hello()?.ok == true)
        let quiet = server.deliverPendingInput(timeout: .seconds(5))
        #expect(quiet)
        server.shutdown(reason: "test", timeout: .seconds(1))
        let afterShutdown = server.deliverPendingInput(timeout: .milliseconds(100))
        #expect(!afterShutdown)
    }
}

import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

@testable import BooksDaemon

/// The socket server end to end, over real Unix sockets. One serialized suite, so the
/// timing-sensitive tests never overlap; its tests live in one file per topic:
/// `SocketServerProtocolTests` (hello, replies, violations, flow control),
/// `SocketServerBroadcastTests` (the change feed), `SocketServerLifecycleTests` (limits, the
/// socket file, shutdown) and `SocketServerPendingInputTests` (`deliverPendingInput`).
@Suite(.serialized) struct SocketServerTests {
    func makeServer(
        _ dir: TemporaryDirectory, delegate: TestDelegate = TestDelegate(),
        configure: (inout SocketServerConfiguration) -> Void = { _ in }
    ) throws -> SocketServer {
        var configuration = SocketServerConfiguration(path: dir.socketPath, serverName: "booksd test")
        configure(&configuration)
        let server = try SocketServer(configuration: configuration)
        try server.start(delegate: delegate)
        return server
    }
}

import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

@testable import BooksDaemon

/// Limits, the socket file, shutdown and inherited sockets.
extension SocketServerTests {
    @Test func maxClientsRefusesTheNextOne() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxClients = 2 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let a = try #require(TestClient(path: dir.socketPath))
        let b = try #require(TestClient(path: dir.socketPath))
        #expect(a.hello()?.ok == true)
        #expect(b.hello()?.ok == true)
        let c = try #require(TestClient(path: dir.socketPath))
        #expect(c.readReply()?.error?.code == .limitExceeded)
        #expect(c.isClosedByServer())
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.rejected == 1 })
        // A slot frees up when a client leaves.
        _ = consume a
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.clients == 1 })
        let d = try #require(TestClient(path: dir.socketPath))
        #expect(d.hello()?.ok == true)
    }

    @Test(.descriptorTableTurn) func manyIdleConnectionsAndRapidChurn() throws {
        // This test fills the descriptor table past 1024: it takes turns with the inotify watcher
        // tests, and keeps libinotifytools' low slot reserved first, as booksd itself does.
        InotifyHub.prepare()
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        var idle: [TestClient] = []
        for _ in 0..<1000 { if let c = TestClient(path: dir.socketPath) { idle.append(c) } }
        #expect(idle.count == 1000)
        for _ in 0..<200 { _ = TestClient(path: dir.socketPath) }  // connect and drop at once
        // Wait until the churn was accepted and noticed too, so the probe is not over maxClients.
        #expect(
            eventuallyBlocking(timeout: 10) {
                server.statistics.accepted == 1200 && server.statistics.clients == 1000
            })
        let probe = try #require(TestClient(path: dir.socketPath))
        let probeReply = probe.hello()
        #expect(probeReply?.ok == true, "\(String(describing: probeReply)) \(server.statistics)")
        idle.removeAll()
        #expect(eventuallyBlocking(timeout: 10) { server.statistics.clients == 1 })
    }

    @Test func staleSocketFileIsReplaced() throws {
        let dir = try TemporaryDirectory()
        // Leave a socket file behind that nobody listens on.
        let stale = try SocketServer(configuration: SocketServerConfiguration(path: dir.socketPath))
        let fdPath = dir.socketPath
        // Simulate a crash: keep the file, close the listener without unlinking.
        stale.abandonListenerForTesting()
        var st = stat()
        #expect(lstat(fdPath, &st) == 0)

        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        #expect(lstat(fdPath, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK && (st.st_mode & 0o777) == 0o660)
    }

    @Test func liveSocketIsNeverStolen() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        #expect(throws: SocketServerError.addressInUse(path: dir.socketPath)) {
            _ = try SocketServer(configuration: SocketServerConfiguration(path: dir.socketPath))
        }
        #expect(SocketServerError.addressInUse(path: "/p").description == "another booksd is already serving /p")
        #expect(
            eventuallyBlocking(timeout: 5) { ProcessThreads.count(named: "booksd-server") >= 1 },
            "the server runs on a named thread")
        let noThread = SocketServerError.threadStartFailed(DedicatedThreadError(name: "booksd-server", code: EAGAIN))
        #expect(noThread.description.hasPrefix("the socket server cannot run: cannot start thread booksd-server"))
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        // A regular file at the path is not touched either.
        let dir2 = try TemporaryDirectory()
        let file = fopen(dir2.socketPath, "w")
        fclose(file)
        #expect(throws: SocketServerError.pathOccupied(path: dir2.socketPath)) {
            _ = try SocketServer(configuration: SocketServerConfiguration(path: dir2.socketPath))
        }
    }

    @Test func shutdownNotifiesSubscribersAndUnlinks() throws {
        let dir = try TemporaryDirectory()
        let delegate = TestDelegate()
        let server = try makeServer(dir, delegate: delegate)
        let subscriber = try #require(TestClient(path: dir.socketPath))
        let plain = try #require(TestClient(path: dir.socketPath))
        #expect(plain.hello()?.ok == true)
        #expect(subscriber.hello()?.ok == true)
        subscriber.send(#"{"id":"s","op":"subscribe"}"#)
        #expect(subscriber.readReply()?.ok == true)
        #expect(subscriber.readEvent()?.event == .snapshot)
        server.shutdown(reason: "stopping for test", timeout: .seconds(2))
        let notice = subscriber.readEvent()
        #expect(notice?.event == .shutdown && notice?.reason == "stopping for test")
        #expect(subscriber.isClosedByServer())
        #expect(plain.isClosedByServer())
        var st = stat()
        #expect(lstat(dir.socketPath, &st) != 0)
        #expect(delegate.closed.withLock { $0.count } == 2)
        #expect(TestClient(path: dir.socketPath) == nil)
        server.shutdown(reason: "again", timeout: .seconds(1))  // idempotent
    }

    @Test func inheritedSocketIsNeverUnlinked() throws {
        let dir = try TemporaryDirectory()
        let owner = try SocketServer(configuration: SocketServerConfiguration(path: dir.socketPath))
        let fd = owner.duplicateListenerForTesting()
        let server = try SocketServer(configuration: SocketServerConfiguration(path: nil), inheritedListeningFD: fd)
        try server.start(delegate: TestDelegate())
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        server.shutdown(reason: "test", timeout: .seconds(1))
        var st = stat()
        #expect(lstat(dir.socketPath, &st) == 0)
        owner.shutdown(reason: "test", timeout: .seconds(1))
        #expect(lstat(dir.socketPath, &st) != 0)
    }
}

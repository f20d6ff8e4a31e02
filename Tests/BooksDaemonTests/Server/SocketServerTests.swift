import BooksCore
import BooksProtocol
import FoundationEssentials
import Glibc
import Testing
@testable import BooksDaemon

@Suite(.serialized) struct SocketServerTests {
    private func makeServer(_ dir: borrowing TemporaryDirectory, delegate: TestDelegate = TestDelegate(),
                            configure: (inout SocketServerConfiguration) -> Void = { _ in }) throws -> SocketServer {
        var configuration = SocketServerConfiguration(path: dir.socketPath, serverName: "booksd test")
        configure(&configuration)
        let server = try SocketServer(configuration: configuration)
        try server.start(delegate: delegate)
        return server
    }

    @Test func helloIsRequiredAndAnswered() throws {
        let dir = TemporaryDirectory()
        let delegate = TestDelegate()
        delegate.seq.store(7, ordering: .relaxed)
        let server = try makeServer(dir, delegate: delegate)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }

        let rude = try #require(TestClient(path: dir.socketPath))
        rude.send(#"{"id":"p1","op":"ping"}"#)
        let refused = rude.readReply()
        #expect(refused?.error?.code == .helloRequired)
        #expect(refused?.id == "p1")
        #expect(rude.isClosedByServer())

        let polite = try #require(TestClient(path: dir.socketPath))
        let hello = polite.hello(id: "h1")
        #expect(hello == .success("h1", ReplyResult(protocolVersion: 1, server: "booksd test", epoch: "test-epoch", seq: 7)))

        let old = try #require(TestClient(path: dir.socketPath))
        old.send(#"{"id":"h","op":"hello","version":0}"#)
        #expect(old.readReply()?.error?.code == .unsupportedVersion)
        #expect(old.isClosedByServer())
    }

    @Test func repliesMatchRequestIDsAndUnknownOpKeepsConnection() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        client.send(#"{"id":"a","op":"ping"}"# + "\n" + #"{"id":2,"op":"list"}"# + "\n" +
                    #"{"id":"u","op":"warp"}"# + "\n" +
                    #"{"id":"q","op":"list","filter":{"conditions":[{"field":"author","op":"equals","value":"Jane Austen"}]}}"#)
        var byID: [String: Reply] = [:]
        for _ in 0..<4 {
            let reply = try #require(client.readReply())
            byID[reply.id ?? "null"] = reply
        }
        #expect(byID["a"]?.ok == true)
        #expect(byID["2"]?.result?.books == TestDelegate.sampleBooks)
        #expect(byID["u"]?.error?.code == .unknownOp)
        #expect(byID["q"]?.result?.books?.map(\.id) == ["2", "3"])
        client.send(#"{"id":"after","op":"ping"}"#)
        #expect(client.readReply()?.id == "after")
    }

    @Test func garbageDisconnectsOnlyTheOffender() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let good = try #require(TestClient(path: dir.socketPath))
        #expect(good.hello()?.ok == true)

        let cases: [([UInt8], ProtocolError.ErrorCode)] = [
            (Array("this is not json\n".utf8), .badRequest),
            ([UInt8(ascii: "{"), 0xFF, 0xFE, UInt8(ascii: "}"), 10], .invalidUTF8),
            (Array((String(repeating: "[", count: 10_000) + "\n").utf8), .tooDeep),
            (Array(#"{"id":"w","op":"list","limit":"x"}"#.utf8) + [10], .badRequest),
        ]
        for (index, (bytes, code)) in cases.enumerated() {
            let bad = try #require(TestClient(path: dir.socketPath))
            #expect(bad.hello()?.ok == true)
            bad.send(bytes)
            #expect(bad.readReply()?.error?.code == code, "case \(index)")
            #expect(bad.isClosedByServer(), "case \(index)")
            good.send(#"{"id":"g\#(index)","op":"ping"}"#)
            #expect(good.readReply()?.id == "g\(index)")
        }
        #expect(eventually { server.statistics.violations == cases.count })
    }

    @Test func oversizeLineIsRejectedWithBoundedMemory() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxRequestBytes = 64 * 1024 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        // 8 MiB without a newline; the server gives up after 64 KiB, so the send may fail midway.
        client.send([UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20))
        #expect(client.readReply()?.error?.code == .tooLarge)
        #expect(client.isClosedByServer())
        let other = try #require(TestClient(path: dir.socketPath))
        #expect(other.hello()?.ok == true)
    }

    @Test func halfClosedClientStillGetsItsReplies() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        client.send(#"{"id":"h","op":"hello","version":1}"# + "\n" + #"{"id":"l","op":"list"}"# + "\n" + #"{"id":"p","op":"ping"}"#)
        _ = Glibc.shutdown(client.fd, Int32(SHUT_WR))
        #expect(client.readReply()?.id == "h")
        #expect(client.readReply()?.result?.books == TestDelegate.sampleBooks)
        #expect(client.readReply()?.id == "p")
        #expect(client.isClosedByServer())
    }

    @Test func pipeliningWithoutReadingIsBounded() throws {
        let dir = TemporaryDirectory()
        let delegate = TestDelegate(books: (0..<50).map { Book(id: "\($0)", name: String(repeating: "n", count: 200), author: "a") })
        let server = try makeServer(dir, delegate: delegate) { $0.clientQueueBytes = 32 * 1024 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let hog = try #require(TestClient(path: dir.socketPath))
        #expect(hog.hello()?.ok == true)
        let total = 3000
        // ~12 KB list replies; 3000 of them would be ~36 MB if the server buffered them all.
        let burst = (0..<total).map { #"{"id":"\#($0)","op":"list"}"# }.joined(separator: "\n") + "\n"
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(hog.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        hog.send(Array(burst.utf8)) // may stop early once the server stops reading
        usleep(300_000)
        let handled = delegate.received.withLock { $0.count }
        #expect(handled < total / 2, "the server kept delivering requests whose replies nobody reads")
        let other = try #require(TestClient(path: dir.socketPath))
        #expect(other.hello()?.ok == true)
        other.send(#"{"id":"o","op":"ping"}"#)
        #expect(other.readReply()?.id == "o")
        // Once the hog reads, it gets answers in order (for all it managed to send).
        for i in 0..<min(handled + 10, total) {
            let reply = hog.readReply()
            #expect(reply?.id == "\(i)")
            if reply?.id != "\(i)" { break }
        }
    }

    @Test func tricklingBytesWork() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        for byte in Array(#"{"id":"t","op":"hello","version":1}"#.utf8) + [10] { client.send([byte]) }
        #expect(client.readReply()?.id == "t")
    }

    @Test func silentConnectionsAreClosedAfterHelloTimeout() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.helloTimeout = .milliseconds(200) }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let silent = try #require(TestClient(path: dir.socketPath))
        let start = ContinuousClock().now
        #expect(silent.readReply()?.error?.code == .helloRequired)
        #expect(silent.isClosedByServer())
        #expect(ContinuousClock().now - start < .seconds(3))
        // A client that said hello is not affected.
        let polite = try #require(TestClient(path: dir.socketPath))
        #expect(polite.hello()?.ok == true)
        usleep(400_000)
        polite.send(#"{"id":"still","op":"ping"}"#)
        #expect(polite.readReply()?.id == "still")
    }

    @Test func maxClientsRefusesTheNextOne() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxClients = 2 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let a = try #require(TestClient(path: dir.socketPath))
        let b = try #require(TestClient(path: dir.socketPath))
        #expect(a.hello()?.ok == true)
        #expect(b.hello()?.ok == true)
        let c = try #require(TestClient(path: dir.socketPath))
        #expect(c.readReply()?.error?.code == .limitExceeded)
        #expect(c.isClosedByServer())
        #expect(eventually { server.statistics.rejected == 1 })
        // A slot frees up when a client leaves.
        _ = consume a
        #expect(eventually { server.statistics.clients == 1 })
        let d = try #require(TestClient(path: dir.socketPath))
        #expect(d.hello()?.ok == true)
    }

    @Test func manyIdleConnectionsAndRapidChurn() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        var idle: [TestClient] = []
        for _ in 0..<1000 { if let c = TestClient(path: dir.socketPath) { idle.append(c) } }
        #expect(idle.count == 1000)
        for _ in 0..<200 { _ = TestClient(path: dir.socketPath) } // connect and drop at once
        // Wait until the churn was accepted and noticed too, so the probe is not over maxClients.
        #expect(eventually(10) { server.statistics.accepted == 1200 && server.statistics.clients == 1000 })
        let probe = try #require(TestClient(path: dir.socketPath))
        let probeReply = probe.hello()
        #expect(probeReply?.ok == true, "\(String(describing: probeReply)) \(server.statistics)")
        idle.removeAll()
        #expect(eventually(10) { server.statistics.clients == 1 })
    }

    @Test func staleSocketFileIsReplaced() throws {
        let dir = TemporaryDirectory()
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
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        #expect(throws: SocketServerError.addressInUse(path: dir.socketPath)) {
            _ = try SocketServer(configuration: SocketServerConfiguration(path: dir.socketPath))
        }
        #expect(SocketServerError.addressInUse(path: "/p").description == "another booksd is already serving /p")
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        // A regular file at the path is not touched either.
        let dir2 = TemporaryDirectory()
        let file = fopen(dir2.socketPath, "w")
        fclose(file)
        #expect(throws: SocketServerError.pathOccupied(path: dir2.socketPath)) {
            _ = try SocketServer(configuration: SocketServerConfiguration(path: dir2.socketPath))
        }
    }

    private static func change(_ seq: UInt64, inserted: [Book] = [], updated: [BookUpdate] = [], deleted: [Book] = []) -> SequencedChangeSet {
        SequencedChangeSet(epoch: "test-epoch", seq: seq, source: .file, time: Date(timeIntervalSince1970: 1_700_000_000),
                           changes: ChangeSet(inserted: inserted, updated: updated, deleted: deleted))
    }

    @Test func broadcastsAreFilteredPerSubscriber() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let all = try #require(TestClient(path: dir.socketPath))
        let austen = try #require(TestClient(path: dir.socketPath))
        #expect(all.hello()?.ok == true)
        #expect(austen.hello()?.ok == true)
        all.send(#"{"id":"s","op":"subscribe"}"#)
        #expect(all.readReply()?.ok == true)
        #expect(all.readEvent()?.books == TestDelegate.sampleBooks)
        austen.send(#"{"id":"s","op":"subscribe","filter":{"conditions":[{"field":"author","op":"equals","value":"Jane Austen"}]}}"#)
        #expect(austen.readReply()?.ok == true)
        #expect(austen.readEvent()?.books?.map(\.id) == ["2", "3"])
        #expect(eventually { server.statistics.subscribers == 2 })

        let herbert = Book(id: "9", name: "Children of Dune", author: "Frank Herbert")
        let sanditon = Book(id: "8", name: "Sanditon", author: "Jane Austen")
        let emma = TestDelegate.sampleBooks[1]
        let emmaMoved = Book(id: "2", name: "Emma", author: "Someone Else")
        server.broadcast(Self.change(0, inserted: [herbert]))            // not after afterSeq 0: skipped
        server.broadcast(Self.change(1, inserted: [herbert]))            // Austen view: empty, skipped
        server.broadcast(Self.change(2, inserted: [sanditon]))
        server.broadcast(Self.change(3, updated: [BookUpdate(old: emma, new: emmaMoved)]))
        server.broadcastHeartbeat(epoch: "test-epoch", seq: 3)

        let a1 = all.readEvent(), a2 = all.readEvent(), a3 = all.readEvent(), a4 = all.readEvent()
        #expect(a1?.seq == 1 && a1?.inserted == [herbert] && a1?.time == "2023-11-14T22:13:20.000Z")
        #expect(a2?.seq == 2 && a2?.inserted == [sanditon])
        #expect(a3?.seq == 3 && a3?.updated == [BookUpdate(old: emma, new: emmaMoved)])
        #expect(a4?.event == .heartbeat && a4?.seq == 3)

        let f1 = austen.readEvent(), f2 = austen.readEvent(), f3 = austen.readEvent()
        #expect(f1?.seq == 2 && f1?.inserted == [sanditon])
        #expect(f2?.seq == 3 && f2?.deleted == [emma] && f2?.updated == [])
        #expect(f3?.event == .heartbeat)

        austen.send(#"{"id":"u","op":"unsubscribe"}"#)
        #expect(austen.readReply()?.id == "u")
        #expect(eventually { server.statistics.subscribers == 1 })
    }

    /// Enough subscribers for the broadcast to be sent from two threads (`ParallelSender`, with
    /// a threshold lowered for the test): every one of them gets every change, in order, once.
    @Test func largeBroadcastsReachEverySubscriberInOrder() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.parallelSendThreshold = 4 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let count = 24
        var clients: [TestClient] = []
        for _ in 0..<count {
            let client = try #require(TestClient(path: dir.socketPath))
            #expect(client.hello()?.ok == true)
            client.send(#"{"id":"s","op":"subscribe"}"#)
            #expect(client.readReply()?.ok == true)
            #expect(client.readEvent()?.event == .snapshot)
            clients.append(client)
        }
        #expect(eventually { server.statistics.subscribers == count })
        let books = (1...5).map { Book(id: "n\($0)", name: "New \($0)", author: "A") }
        for (k, book) in books.enumerated() { server.broadcast(Self.change(UInt64(k + 1), inserted: [book])) }
        for client in clients {
            let seen = (0..<books.count).map { _ in client.readEvent() }
            #expect(seen.map { $0?.seq } == [1, 2, 3, 4, 5])
            #expect(seen.map { $0?.inserted?.first?.id } == books.map(\.id))
        }
    }

    @Test func slowSubscriberIsDisconnectedWhileOthersKeepUp() throws {
        let dir = TemporaryDirectory()
        let server = try makeServer(dir) { $0.clientQueueBytes = 64 * 1024 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let slow = try #require(TestClient(path: dir.socketPath))
        let fast = try #require(TestClient(path: dir.socketPath))
        for client in [slow, fast] {
            #expect(client.hello()?.ok == true)
            client.send(#"{"id":"s","op":"subscribe"}"#)
            #expect(client.readReply()?.ok == true)
            #expect(client.readEvent()?.event == .snapshot)
        }
        let bulky = String(repeating: "x", count: 4000)
        let count: UInt64 = 600 // ~2.4 MB in total: far beyond socket buffers plus 64 KiB
        for seq in 1...count {
            server.broadcast(Self.change(seq, inserted: [Book(id: "b\(seq)", name: bulky, author: "A")]))
            let event = fast.readEvent()
            #expect(event?.seq == seq)
            if event?.seq != seq { break }
        }
        #expect(eventually { server.statistics.lagged == 1 && server.statistics.subscribers == 1 })
        // The slow client finds the end of its stream after what was buffered.
        var lastSeen: Event?
        while let event = slow.readEvent() { lastSeen = event }
        #expect(lastSeen == nil || lastSeen!.seq < count)
    }

    @Test func shutdownNotifiesSubscribersAndUnlinks() throws {
        let dir = TemporaryDirectory()
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
        server.shutdown(reason: "again", timeout: .seconds(1)) // idempotent
    }

    @Test func inheritedSocketIsNeverUnlinked() throws {
        let dir = TemporaryDirectory()
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

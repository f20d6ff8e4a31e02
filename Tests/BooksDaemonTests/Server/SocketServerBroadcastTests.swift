import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

@testable import BooksDaemon

/// Subscriptions and the change feed: filtering, fan-out, lagged subscribers.
extension SocketServerTests {
    private static func change(
        _ seq: UInt64, inserted: [Book] = [], updated: [BookUpdate] = [], deleted: [Book] = []
    ) -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: "test-epoch", seq: seq, source: .file, time: Date(timeIntervalSince1970: 1_700_000_000),
            changes: ChangeSet(inserted: inserted, updated: updated, deleted: deleted))
    }

    @Test func conflictEventsGoOnlyToSubscribersThatAskedForThem() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let asking = try #require(TestClient(path: dir.socketPath))
        let plain = try #require(TestClient(path: dir.socketPath))
        for (client, extra) in [(asking, #","conflicts":true"#), (plain, "")] {
            #expect(client.hello()?.ok == true)
            client.send(#"{"id":"s","op":"subscribe""# + extra + "}")
            #expect(client.readReply()?.ok == true)
            #expect(client.readEvent()?.books == TestDelegate.sampleBooks)
        }
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.subscribers == 2 })
        var conflict = Event(event: .conflict, epoch: "test-epoch", seq: 1)
        conflict.conflict = RecordedConflict(
            id: 1,
            conflict: MergeConflict(
                id: "2", kind: .name, base: nil, mine: TestDelegate.sampleBooks[1], theirs: TestDelegate.sampleBooks[1]),
            seq: 1, baseSeq: 0, time: Date(timeIntervalSince1970: 1_700_000_000), who: "")
        server.broadcastConflict(conflict)
        server.broadcastHeartbeat(epoch: "test-epoch", seq: 1)
        let received = asking.readEvent()
        #expect(received?.event == .conflict && received?.conflict == conflict.conflict)
        #expect(asking.readEvent()?.event == .heartbeat)
        #expect(
            plain.readEvent()?.event == .heartbeat, "the plain subscriber gets the heartbeat, no conflict before it")
    }

    @Test func broadcastsAreFilteredPerSubscriber() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let all = try #require(TestClient(path: dir.socketPath))
        let austen = try #require(TestClient(path: dir.socketPath))
        #expect(all.hello()?.ok == true)
        #expect(austen.hello()?.ok == true)
        all.send(#"{"id":"s","op":"subscribe"}"#)
        #expect(all.readReply()?.ok == true)
        #expect(all.readEvent()?.books == TestDelegate.sampleBooks)
        austen.send(
            #"{"id":"s","op":"subscribe","filter":{"conditions":"#
                + #"[{"field":"author","op":"equals","value":"Jane Austen"}]}}"#
        )
        #expect(austen.readReply()?.ok == true)
        #expect(austen.readEvent()?.books?.map(\.id) == ["2", "3"])
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.subscribers == 2 })

        let herbert = Book(id: "9", name: "Children of Dune", author: "Frank Herbert")
        let sanditon = Book(id: "8", name: "Sanditon", author: "Jane Austen")
        let emma = TestDelegate.sampleBooks[1]
        let emmaMoved = Book(id: "2", name: "Emma", author: "Someone Else")
        server.broadcast(Self.change(0, inserted: [herbert]))  // not after afterSeq 0: skipped
        server.broadcast(Self.change(1, inserted: [herbert]))  // Austen view: empty, skipped
        server.broadcast(Self.change(2, inserted: [sanditon]))
        server.broadcast(Self.change(3, updated: [BookUpdate(old: emma, new: emmaMoved)]))
        server.broadcastHeartbeat(epoch: "test-epoch", seq: 3)

        let a1 = all.readEvent()
        let a2 = all.readEvent()
        let a3 = all.readEvent()
        let a4 = all.readEvent()
        #expect(a1?.seq == 1 && a1?.inserted == [herbert] && a1?.time == "2023-11-14T22:13:20.000Z")
        #expect(a2?.seq == 2 && a2?.inserted == [sanditon])
        #expect(a3?.seq == 3 && a3?.updated == [BookUpdate(old: emma, new: emmaMoved)])
        #expect(a4?.event == .heartbeat && a4?.seq == 3)

        let f1 = austen.readEvent()
        let f2 = austen.readEvent()
        let f3 = austen.readEvent()
        #expect(f1?.seq == 2 && f1?.inserted == [sanditon])
        #expect(f2?.seq == 3 && f2?.deleted == [emma] && f2?.updated == [])
        #expect(f3?.event == .heartbeat)

        austen.send(#"{"id":"u","op":"unsubscribe"}"#)
        #expect(austen.readReply()?.id == "u")
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.subscribers == 1 })
    }

    /// Enough subscribers for the broadcast to be sent from two threads (`ParallelSender`, with
    /// a threshold lowered for the test): every one of them gets every change, in order, once.
    @Test func largeBroadcastsReachEverySubscriberInOrder() throws {
        let dir = try TemporaryDirectory()
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
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.subscribers == count })
        let books = (1...5).map { Book(id: "n\($0)", name: "New \($0)", author: "A") }
        for (k, book) in books.enumerated() { server.broadcast(Self.change(UInt64(k + 1), inserted: [book])) }
        for client in clients {
            let seen = (0..<books.count).map { _ in client.readEvent() }
            #expect(seen.map { $0?.seq } == [1, 2, 3, 4, 5])
            #expect(seen.map { $0?.inserted?.first?.id } == books.map(\.id))
        }
        #expect(
            eventuallyBlocking(timeout: 5) { ProcessThreads.count(named: "booksd-sender") >= 1 },
            "the fan-out helper runs on a named thread")
    }

    @Test func slowSubscriberIsDisconnectedWhileOthersKeepUp() throws {
        let dir = try TemporaryDirectory()
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
        let count: UInt64 = 600  // ~2.4 MB in total: far beyond socket buffers plus 64 KiB
        for seq in 1...count {
            server.broadcast(Self.change(seq, inserted: [Book(id: "b\(seq)", name: bulky, author: "A")]))
            let event = fast.readEvent()
            #expect(event?.seq == seq)
            if event?.seq != seq { break }
        }
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.lagged == 1 && server.statistics.subscribers == 1 })
        // The slow client finds the end of its stream after what was buffered.
        var lastSeen: Event?
        while let event = slow.readEvent() { lastSeen = event }
        #expect(lastSeen == nil || lastSeen!.seq < count)
    }
}

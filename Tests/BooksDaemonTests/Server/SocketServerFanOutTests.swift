import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Synchronization
import Testing

@testable import BooksDaemon

/// Fan-out at scale: subscribers joining and leaving while changes flow, and filters evaluated
/// once per distinct filter.
extension SocketServerTests {
    private static func change(_ seq: UInt64, author: String) -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: "test-epoch", seq: seq, source: .file, time: Date(timeIntervalSince1970: 1_700_000_000),
            changes: ChangeSet(inserted: [Book(id: "c\(seq)", name: "Change \(seq)", author: author)]))
    }

    private static func subscribe(_ client: TestClient, authorContains: String?) -> Bool {
        guard client.hello()?.ok == true else { return false }
        if let authorContains {
            client.send(
                #"{"id":"s","op":"subscribe","filter":{"conditions":[{"field":"author","op":"contains","value":"#
                    + "\(LineClient.quoted(authorContains))}]}}")
        } else {
            client.send(#"{"id":"s","op":"subscribe"}"#)
        }
        return client.readReply()?.ok == true && client.readEvent()?.event == .snapshot
    }

    /// 300 subscribers stay while others join (hello, subscribe) and leave (close, some without
    /// reading anything) as fast as one thread can, and 30 changes are broadcast meanwhile: from
    /// two sending threads (threshold 128, as on a machine with 4+ CPUs, whatever this one has),
    /// or from the server thread alone in bursts (300 is more than one `DirectSendBatch.burst`).
    /// Every subscriber that stayed gets every change exactly once, in order.
    @Test(arguments: [128, Int.max])
    func subscribersThatStayGetEveryChangeOnceWhileOthersComeAndGo(parallelSendThreshold: Int) throws {
        #expect(DirectSendBatch.burst < 300)
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) {
            $0.maxClients = 4096
            $0.parallelSendThreshold = parallelSendThreshold
        }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let stayers = 300
        var clients: [TestClient] = []
        for _ in 0..<stayers {
            let client = try #require(TestClient(path: dir.socketPath))
            #expect(Self.subscribe(client, authorContains: nil))
            clients.append(client)
        }
        #expect(eventuallyBlocking(timeout: 10) { server.statistics.subscribers == stayers })

        let stop = Atomic<Bool>(false)
        let cycles = Atomic<Int>(0)
        let path = dir.socketPath
        let churn = try DedicatedThread.start(name: "test-churn") {
            var open: [LineClient] = []
            while !stop.load(ordering: .relaxed) {
                guard let client = try? LineClient(path: path) else { continue }
                client.enqueue(#"{"id":"h","op":"hello","version":1}"#)
                client.enqueue(#"{"id":"s","op":"subscribe"}"#)
                _ = client.flush()
                open.append(client)
                if open.count > 20 {
                    let leaving = open.removeFirst()
                    // Every other leaver reads what it got first; the rest close with unread data.
                    if cycles.load(ordering: .relaxed) % 2 == 0 { _ = leaving.readAvailableLines() }
                    leaving.close()
                    cycles.add(1, ordering: .relaxed)
                }
            }
            for client in open { client.close() }
        }
        let changes: UInt64 = 30
        for seq in 1...changes {
            server.broadcast(Self.change(seq, author: "A"))
            usleep(5_000)
        }
        server.broadcastHeartbeat(epoch: "test-epoch", seq: changes)
        stop.store(true, ordering: .relaxed)
        churn.join()
        #expect(cycles.load(ordering: .relaxed) > 0, "subscribers came and went during the changes")

        for (k, client) in clients.enumerated() {
            var seqs: [UInt64] = []
            while let event = client.readEvent(), event.event != .heartbeat { seqs.append(event.seq) }
            #expect(seqs == Array(1...changes), "stayer \(k)")
            if seqs != Array(1...changes) { break }
        }
        #expect(server.statistics.lagged == 0)
    }

    /// 60 subscribers share 3 filters (two `author contains …`, one unfiltered): each change is
    /// filtered and encoded 3 times, not 60 — also when nothing of it passes a filter.
    @Test func eachDistinctFilterIsEvaluatedOncePerChange() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let filters: [String?] = ["Austen", "Herbert", nil]
        var clients: [(client: TestClient, filter: String?)] = []
        for k in 0..<60 {
            let client = try #require(TestClient(path: dir.socketPath))
            let filter = filters[k % filters.count]
            #expect(Self.subscribe(client, authorContains: filter))
            clients.append((client, filter))
        }
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.subscribers == 60 })
        let before = server.statistics.filterEvaluations
        let authors = ["Jane Austen", "Frank Herbert", "Nobody", "Jane Austen"]
        for (k, author) in authors.enumerated() { server.broadcast(Self.change(UInt64(k + 1), author: author)) }
        server.broadcastHeartbeat(epoch: "test-epoch", seq: UInt64(authors.count))
        for (client, filter) in clients {
            var seqs: [UInt64] = []
            while let event = client.readEvent(), event.event != .heartbeat { seqs.append(event.seq) }
            let expected = authors.enumerated().filter { filter == nil || $0.element.contains(filter!) }
                .map { UInt64($0.offset + 1) }
            #expect(seqs == expected, "filter \(filter ?? "none")")
        }
        #expect(server.statistics.filterEvaluations - before == authors.count * filters.count)
    }
}

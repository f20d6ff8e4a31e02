import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// The SSE change feed against a real booksd: every kind of write arrives in order, once;
/// resume by `Last-Event-ID` after a reconnect and across a restart; a stalled client is cut off.
@Suite("HTTP change feed", .serialized) struct HTTPFeedTests {
    static let rows = ["b1|Emma|Jane Austen", "b2|Dune|Frank Herbert"]

    static func seqs(_ events: [ServerSentEvent]) -> [UInt64] {
        events.filter { $0.event == "change" }.compactMap { $0.id.flatMap(EventIDText.seq) }
    }

    @Test("a POST, a sed -i and a vim hand edit and a socket client's write reach the SSE client in order, once")
    func everyWriteOnce() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let (feed, head) = try daemon.changes()
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })

        _ = try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"Ulysses","author":"James Joyce"}"#)
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()).count == 1 })
        let sed = try await ChildProcess.run(["sed", "-i", "s/Dune/Dune Messiah/", daemon.feed.file], timeout: 20)
        #expect(sed.status == 0)
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()).count == 2 })
        let tools = ToolRunner(
            environment: HarnessEnvironment.base(home: daemon.feed.directory), workingDirectory: daemon.feed.directory)
        let vim = try await TmuxSession(tools: tools, command: "vim -u NONE -N \(daemon.feed.file)")
        defer { vim.kill() }
        try await vim.waitForScreen(containing: "Frank Herbert")
        try await vim.type(":%s/Frank Herbert/Frank HERBERT/")
        try await vim.send("Enter")
        try await vim.type(":wq")
        try await vim.send("Enter")
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()).count == 3 })
        let client = try await daemon.feed.connect("http-test")
        _ = try await client.update([BookPatch(id: "b1", name: "Persuasion")])
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()).count == 4 })
        try await Task.sleep(for: .milliseconds(200))  // room for a duplicate to show up

        let events = feed.events().filter { $0.event == "change" }
        #expect(Self.seqs(events) == [1, 2, 3, 4])
        let bodies = events.map {
            (try? JSONSerialization.jsonObject(with: Data($0.data.utf8))) as? [String: Any] ?? [:]
        }
        #expect(bodies.map { $0["source"] as? String } == ["client", "file", "file", "client"])
        #expect(
            (((bodies[2]["updated"] as? [[String: Any]])?.first?["new"] as? [String: Any])?["author"] as? String)
                == "Frank HERBERT")
        #expect(((bodies[0]["inserted"] as? [[String: Any]])?.first?["name"] as? String) == "Ulysses")
        #expect(
            (((bodies[1]["updated"] as? [[String: Any]])?.first?["new"] as? [String: Any])?["name"] as? String)
                == "Dune Messiah")
        #expect(events[0].id?.hasSuffix(":1") == true)
        // The version of a book a change touched is that change's seq: the ETag a page may use.
        #expect(try daemon.request("GET", "/v1/stores/default/books/b1").headers["etag"] == "\"4\"")
        client.close()
    }

    @Test("Last-Event-ID resumes exactly after that event, after a reconnect and after a booksd restart")
    func resume() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        var (feed, _) = try daemon.changes()
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })
        _ = try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"A","author":"x"}"#)
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()) == [1] })
        let last = try #require(feed.events().last?.id)
        feed = try HTTPTestClient(port: daemon.port)  // the old connection goes away
        _ = try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"B","author":"x"}"#)
        try daemon.feed.handAppend("h1|Hand|Made")
        #expect(
            await eventually(timeout: 10) {
                (try? daemon.request("GET", "/v1/stores/default/books/h1").status) == 200
            })
        (feed, _) = try daemon.changes(headers: ["Last-Event-ID": last])
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()) == [2, 3] })
        let resumed = try #require(feed.events().last?.id)

        // Across a restart: the epoch and the change log are kept in the state directory.
        daemon.feed.stop()
        try daemon.feed.handAppend("h2|While|Down")
        try await daemon.feed.start()
        #expect(await eventually(timeout: 10) { NATSServerProcess.accepts(port: daemon.port) })
        (feed, _) = try daemon.changes(headers: ["Last-Event-ID": resumed])
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()) == [4] })
        _ = try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"C","author":"x"}"#)
        #expect(await eventually(timeout: 10) { Self.seqs(feed.events()) == [4, 5] })
        #expect(!feed.events().contains { $0.event == "resync" })
        #expect(feed.events().first?.data.contains("While") == true)
    }

    @Test("a stalled SSE client that never reads is cut off with bounded memory; others are not delayed")
    func stalledClient() async throws {
        let daemon = try await HTTPDaemon(
            rows: Self.rows, settings: ["client_queue_bytes=64K", "idle_timeout_seconds=5"])
        defer { daemon.stop() }
        let stalled = try HTTPTestClient(port: daemon.port, receiveBuffer: 4096)
        stalled.send("GET", "/v1/stores/default/changes", port: daemon.port, headers: ["Accept": "text/event-stream"])
        let (healthy, _) = try daemon.changes()
        #expect(await eventually(timeout: 5) { healthy.receivedText.hasPrefix("retry: ") })
        // 40 change sets of 10 books of 20 KB each: 8 MB, far more than the kernel's buffers hold.
        let big = String(repeating: "n", count: 20_000)
        let client = try await daemon.feed.connect("stall-writer")
        for i in 0..<40 {
            _ = try await client.insert((0..<10).map { BookDraft(id: "s\(i)-\($0)", name: big, author: "x") })
            _ = healthy.events()
        }
        #expect(await eventually(timeout: 30) { Self.seqs(healthy.events()).count == 40 })
        // The stalled one was cut off: its backlog was dropped, and the idle timeout closes it.
        var received = 0
        let closed = await eventually(timeout: 30) {
            while stalled.pump(timeout: 0.05) > 0 { received += 1 }  // read all that waits
            return stalled.closed
        }
        #expect(closed)
        #expect(stalled.streamHead(timeout: 1)?.status == 200)
        #expect(Self.seqs(stalled.events()).count < 40)
        #expect(try daemon.request("GET", "/v1/stores/default/books/s39-9").status == 200)
        client.close()
    }
}

extension HTTPFeedTests {
    @Test("feed=longpoll answers the changes after since= at once, else waits for the next one, else times out")
    func longPoll() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let list = daemon.json(try daemon.request("GET", "/v1/stores/default/books"))
        let start = "\(list["epoch"] as? String ?? ""):\(list["seq"] as? Int ?? -1)"
        let empty = try daemon.request("GET", "/v1/stores/default/changes?feed=longpoll&timeout=1&since=\(start)")
        #expect(empty.status == 200)
        #expect(daemon.json(empty)["last"] as? String == start)
        #expect((daemon.json(empty)["changes"] as? [Any])?.isEmpty == true)

        let waiting = try HTTPTestClient(port: daemon.port)
        waiting.send("GET", "/v1/stores/default/changes?feed=longpoll&since=\(start)", port: daemon.port)
        try await Task.sleep(for: .milliseconds(300))
        try daemon.feed.handAppend("h1|Hand|Made")
        let answer = try #require(waiting.response(timeout: 10))
        let changes = daemon.json(answer)["changes"] as? [[String: Any]] ?? []
        #expect(changes.count == 1)
        #expect(changes.first?["seq"] as? Int == 1)
        let last = try #require(daemon.json(answer)["last"] as? String)
        #expect(last.hasSuffix(":1"))

        _ = try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"A","author":"x"}"#)
        let replayed = daemon.json(try daemon.request("GET", "/v1/stores/default/changes?feed=longpoll&since=\(start)"))
        #expect((replayed["changes"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [1, 2])
    }
}

/// The seq of an `EPOCH:SEQ` event id.
enum EventIDText {
    static func seq(_ id: String) -> UInt64? { id.split(separator: ":").last.flatMap { UInt64($0) } }
}

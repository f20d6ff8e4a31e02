import BooksTestSupport
import Foundation
import Glibc
import Testing

/// The feed of several stores, `GET /v1/changes?stores=…`, against a real booksd with a named
/// store and a watched folder: every store's changes in one stream, stores added and removed,
/// resume per store by `Last-Event-ID`, and the long poll.
@Suite("HTTP feed of several stores", .serialized) struct HTTPStoresFeedTests {
    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// booksd with `default`, `fiction` (a named store) and the watched folder `lists/`.
    static func daemon() async throws -> (HTTPDaemon, TemporaryDirectory) {
        let scratch = try TemporaryDirectory(prefix: "http-stores")
        try TestFiles.write("f1|Dune|Frank Herbert\n", to: scratch.file("fiction.txt"))
        let lists = scratch.makeDirectory("lists")
        let daemon = try await HTTPDaemon(
            rows: ["b1|Emma|Jane Austen"],
            arguments: ["--store", "fiction=\(scratch.file("fiction.txt"))", "--dir", lists])
        return (daemon, scratch)
    }

    static func post(_ daemon: HTTPDaemon, _ store: String, _ name: String) throws {
        let made = try daemon.request("POST", "/v1/stores/\(store)/books", body: #"{"name":"\#(name)","author":"x"}"#)
        #expect(made.status == 201, "\(made.text)")
    }

    @Test("stores=*: each store's changes in order, once, ids with every store's position; stores added and removed")
    func everyStore() async throws {
        let (daemon, scratch) = try await Self.daemon()
        defer {
            daemon.stop()
            scratch.remove()
        }
        let (feed, head) = try daemon.changes(query: "?stores=*", path: "/v1/changes")
        #expect(head.status == 200)
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })
        try Self.post(daemon, "default", "One")
        try Self.post(daemon, "fiction", "Two")
        try Self.post(daemon, "default", "Three")
        #expect(await eventually(timeout: 10) { feed.events().filter { $0.event == "change" }.count == 3 })

        try TestFiles.write("c1|Kim|Rudyard Kipling\n", to: scratch.path + "/lists/c.txt")
        #expect(await eventually(timeout: 15) { feed.events().contains { $0.event == "store-added" } })
        #expect(await eventually(timeout: 10) { (try? daemon.request("GET", "/v1/stores/c/books").status) == 200 })
        try Self.post(daemon, "c", "Four")
        #expect(await eventually(timeout: 10) { feed.events().filter { $0.event == "change" }.count == 4 })
        unlink(scratch.path + "/lists/c.txt")
        #expect(await eventually(timeout: 15) { feed.events().contains { $0.event == "store-removed" } })
        try await Task.sleep(for: .milliseconds(200))  // room for a duplicate to show up

        // A store leaving takes its books with it: their deletion is its last change, then store-removed.
        let events = feed.events()
        #expect(
            events.map(\.event) == ["change", "change", "change", "store-added", "change", "change", "store-removed"])
        guard events.count == 7 else { return }
        let bodies = events.map { Self.json($0.data) }
        #expect(bodies.map { $0["store"] as? String } == ["default", "fiction", "default", "c", "c", "c", "c"])
        #expect(bodies.map { $0["seq"] as? Int }.prefix(3) == [1, 1, 2])
        #expect(((bodies[4]["inserted"] as? [[String: Any]])?.first?["name"] as? String) == "Four")
        #expect(
            Set(((bodies[5]["deleted"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }) == [
                "Kim", "Four",
            ])
        let positions = events.map { StoresEventIDText.positions($0.id ?? "") }
        #expect(positions[0] == ["default": 1, "fiction": 0])
        #expect(positions[2] == ["default": 2, "fiction": 1])
        #expect(positions[3] == ["default": 2, "fiction": 1, "c": 1])
        #expect(positions[4] == ["default": 2, "fiction": 1, "c": 2])
        #expect(positions[6] == ["default": 2, "fiction": 1])
    }

    @Test("Last-Event-ID resumes each store after its own position; long poll; unknown store 404, no stores= 400")
    func resumeAndLongPoll() async throws {
        let (daemon, scratch) = try await Self.daemon()
        defer {
            daemon.stop()
            scratch.remove()
        }
        var (feed, _) = try daemon.changes(query: "?stores=default,fiction", path: "/v1/changes")
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })
        try Self.post(daemon, "default", "One")
        #expect(await eventually(timeout: 10) { feed.events().count == 1 })
        let last = try #require(feed.events().last?.id)
        // While away: one change in each store.
        try Self.post(daemon, "fiction", "Two")
        try Self.post(daemon, "default", "Three")
        (feed, _) = try daemon.changes(
            query: "?stores=default,fiction", headers: ["Last-Event-ID": last], path: "/v1/changes")
        #expect(await eventually(timeout: 10) { feed.events().count == 2 })
        try Self.post(daemon, "fiction", "Four")
        #expect(await eventually(timeout: 10) { feed.events().count == 3 })
        try await Task.sleep(for: .milliseconds(200))
        let names = feed.events().map { Self.json($0.data) }.map {
            (($0["inserted"] as? [[String: Any]])?.first?["name"] as? String) ?? "?"
        }
        #expect(names.sorted() == ["Four", "Three", "Two"])
        #expect(names.last == "Four")

        let poll = try daemon.request(
            "GET",
            "/v1/changes?stores=default,fiction&feed=longpoll&since=\(last.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        )
        #expect(poll.status == 200)
        let answer = daemon.json(poll)
        #expect((answer["changes"] as? [[String: Any]])?.count == 3)
        let next = try #require(answer["last"] as? String)
        #expect(StoresEventIDText.positions(next) == ["default": 2, "fiction": 2])
        let encoded = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let waiting = Task {
            try daemon.request("GET", "/v1/changes?stores=default,fiction&feed=longpoll&timeout=20&since=\(encoded)")
        }
        try await Task.sleep(for: .milliseconds(500))
        try Self.post(daemon, "fiction", "Five")
        let woke = daemon.json(try await waiting.value)
        #expect(((woke["changes"] as? [[String: Any]])?.first?["store"] as? String) == "fiction")
        #expect(StoresEventIDText.positions(woke["last"] as? String ?? "") == ["default": 2, "fiction": 3])

        #expect(try daemon.request("GET", "/v1/changes?stores=default,nope&feed=longpoll").status == 404)
        #expect(try daemon.request("GET", "/v1/changes?feed=longpoll").status == 400)
    }

    @Test("a Last-Event-ID of several stores resumes each store after a booksd restart")
    func resumeAcrossRestart() async throws {
        let (daemon, scratch) = try await Self.daemon()
        defer {
            daemon.stop()
            scratch.remove()
        }
        var (feed, _) = try daemon.changes(query: "?stores=*", path: "/v1/changes")
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })
        try Self.post(daemon, "default", "One")
        try Self.post(daemon, "fiction", "Two")
        #expect(await eventually(timeout: 10) { feed.events().count == 2 })
        let last = try #require(feed.events().last?.id)

        daemon.feed.stop()
        try daemon.feed.handAppend("h1|While|Down")  // default, while booksd is down
        try await daemon.feed.start()
        #expect(await eventually(timeout: 10) { NATSServerProcess.accepts(port: daemon.port) })
        (feed, _) = try daemon.changes(query: "?stores=*", headers: ["Last-Event-ID": last], path: "/v1/changes")
        #expect(await eventually(timeout: 5) { feed.receivedText.hasPrefix("retry: ") })
        try Self.post(daemon, "fiction", "Three")
        #expect(await eventually(timeout: 10) { feed.events().count == 2 })
        try await Task.sleep(for: .milliseconds(200))
        let events = feed.events()
        #expect(events.map(\.event) == ["change", "change"])
        let bodies = events.map { Self.json($0.data) }
        #expect(bodies.map { $0["store"] as? String } == ["default", "fiction"])
        #expect(bodies.map { $0["seq"] as? Int } == [2, 2])
        // Even the first event (replayed before every store's subscription started) names every store.
        #expect(StoresEventIDText.positions(events.first?.id ?? "") == ["default": 2, "fiction": 1])
        #expect(StoresEventIDText.positions(events.last?.id ?? "") == ["default": 2, "fiction": 2])
    }
}

/// The seqs of a `StoresEventID` (`STORE=EPOCH:SEQ,…`), by store.
enum StoresEventIDText {
    static func positions(_ id: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for item in id.split(separator: ",") {
            let parts = item.split(separator: "=")
            guard parts.count == 2, let seq = parts[1].split(separator: ":").last.flatMap({ Int($0) }) else { continue }
            out[String(parts[0])] = seq
        }
        return out
    }
}

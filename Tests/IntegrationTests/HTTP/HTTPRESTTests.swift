import BooksTestSupport
import Foundation
import Glibc
import Testing

/// The REST endpoints against a real booksd: every route, status code and header.
@Suite("HTTP REST", .serialized) struct HTTPRESTTests {
    static let rows = ["b1|Emma|Jane Austen", "b2|Dune|Frank Herbert", "b3|Persuasion|Jane Austen"]

    @Test("GET /v1/stores and the books, paged, filtered and sorted; one book with its ETag; 404 as JSON")
    func reads() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let stores = try daemon.request("GET", "/v1/stores")
        #expect(stores.status == 200)
        #expect(stores.headers["content-type"] == "application/json")
        let list = daemon.json(stores)["stores"] as? [[String: Any]] ?? []
        #expect(list.first?["name"] as? String == "default")
        #expect(list.first?["bookCount"] as? Int == 3)

        let page = try daemon.request("GET", "/v1/stores/default/books?limit=2")
        #expect(page.status == 200)
        let first = daemon.json(page)
        #expect((first["books"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["b1", "b2"])
        #expect(first["next"] as? String == "2")
        #expect(first["epoch"] is String && first["seq"] is Int)
        let rest = daemon.json(try daemon.request("GET", "/v1/stores/default/books?limit=2&after=2"))
        #expect((rest["books"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["b3"])
        #expect(rest["next"] is NSNull)

        let austen = daemon.json(try daemon.request("GET", "/v1/stores/default/books?author=austen&sort=-name"))
        #expect((austen["books"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Persuasion", "Emma"])

        let one = try daemon.request("GET", "/v1/stores/default/books/b2")
        #expect(one.status == 200)
        #expect(one.headers["etag"] == "\"0\"")
        #expect(daemon.json(one)["name"] as? String == "Dune")

        let missing = try daemon.request("GET", "/v1/stores/default/books/nope")
        #expect(missing.status == 404)
        #expect(missing.headers["content-type"] == "application/json")
        #expect((daemon.json(missing)["error"] as? [String: Any])?["code"] as? String == "not-found")
        #expect(try daemon.request("GET", "/v1/stores/other/books").status == 404)
        #expect(try daemon.request("GET", "/v1/stores/default/books?limit=0").status == 400)
        #expect(try daemon.request("GET", "/nowhere").status == 404)
    }

    @Test("POST 201 with Location and ETag; PUT with If-Match, 412 with the current value; DELETE; save")
    func writes() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let created = try daemon.request(
            "POST", "/v1/stores/default/books", body: #"{"name":"Middlemarch","author":"George Eliot"}"#)
        #expect(created.status == 201)
        let book = daemon.json(created)
        let id = try #require(book["id"] as? String)
        #expect(created.headers["location"] == "/v1/stores/default/books/\(id)")
        let version = try #require(book["version"] as? Int)
        #expect(created.headers["etag"] == "\"\(version)\"")
        #expect(try daemon.feed.readFile().contains("\(id)|Middlemarch|George Eliot"))

        let updated = try daemon.request(
            "PUT", "/v1/stores/default/books/\(id)", headers: ["If-Match": "\"\(version)\""],
            body: #"{"name":"Adam Bede"}"#)
        #expect(updated.status == 200)
        let newVersion = try #require(daemon.json(updated)["version"] as? Int)
        #expect(newVersion > version)
        #expect(updated.headers["etag"] == "\"\(newVersion)\"")

        let stale = try daemon.request(
            "PUT", "/v1/stores/default/books/\(id)", headers: ["If-Match": "\"\(version)\""], body: #"{"name":"Stale"}"#
        )
        #expect(stale.status == 412)
        let current = (daemon.json(stale)["error"] as? [String: Any])?["current"] as? [String: Any]
        #expect(current?["name"] as? String == "Adam Bede")
        #expect(current?["version"] as? Int == newVersion)
        #expect(try !daemon.feed.readFile().contains("Stale"))

        let unconditional = try daemon.request("PUT", "/v1/stores/default/books/b2", body: #"{"author":"F. Herbert"}"#)
        #expect(unconditional.status == 200)
        #expect(try daemon.request("PUT", "/v1/stores/default/books/zz", body: #"{"name":"x"}"#).status == 404)

        #expect(
            try daemon.request("DELETE", "/v1/stores/default/books/\(id)", headers: ["If-Match": "\"\(version)\""])
                .status
                == 412)
        let deleted = try daemon.request(
            "DELETE", "/v1/stores/default/books/\(id)", headers: ["If-Match": "\"\(newVersion)\""])
        #expect(deleted.status == 204)
        #expect(try !daemon.feed.readFile().contains(id))

        let saved = try daemon.request(
            "POST", "/v1/stores/default/save",
            body: #"{"inserted":[{"tempId":"t1","name":"Beloved","author":"Toni Morrison"}],"deleted":[{"id":"b1"}]}"#)
        #expect(saved.status == 200)
        let remap = try #require(daemon.json(saved)["remap"] as? [String: String])
        let assigned = try #require(remap["t1"])
        let text = try daemon.feed.readFile()
        #expect(text.contains("\(assigned)|Beloved|Toni Morrison") && !text.contains("b1|Emma"))
        let conflict = try daemon.request(
            "POST", "/v1/stores/default/save", body: #"{"updated":[{"id":"b2","name":"Lost","expectedVersion":999}]}"#)
        #expect(conflict.status == 409)
        #expect(try !daemon.feed.readFile().contains("Lost"))
        // /v1/stores names the oldest change set kept (the POST's, seq 1) and when it was applied.
        let stores = daemon.json(try daemon.request("GET", "/v1/stores"))["stores"] as? [[String: Any]] ?? []
        #expect(stores.first?["historyOldestSeq"] as? Int == 1, "\(stores)")
        #expect((stores.first?["historyOldestTime"] as? String)?.hasSuffix("Z") == true, "\(stores)")
    }

    @Test("http_require_if_match = yes: PUT and DELETE without If-Match are 428")
    func requireIfMatch() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows, settings: ["http_require_if_match=yes"])
        defer { daemon.stop() }
        #expect(try daemon.request("PUT", "/v1/stores/default/books/b1", body: #"{"name":"x"}"#).status == 428)
        #expect(try daemon.request("DELETE", "/v1/stores/default/books/b1").status == 428)
        #expect(
            try daemon.request(
                "PUT", "/v1/stores/default/books/b1", headers: ["If-Match": "\"0\""], body: #"{"name":"x"}"#
            )
            .status == 200)
    }

    @Test("a foreign Host (DNS rebinding) and a foreign Origin on a write are refused; reads from the page are not")
    func hostAndOrigin() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        #expect(
            try daemon.request("GET", "/v1/stores", headers: ["Host": "attacker.example:\(daemon.port)"]).status == 421)
        #expect(try daemon.request("GET", "/v1/stores", headers: ["Host": "localhost:\(daemon.port)"]).status == 200)
        let csrf = try daemon.request(
            "POST", "/v1/stores/default/books", headers: ["Origin": "http://attacker.example"],
            body: #"{"name":"CSRF","author":"x"}"#)
        #expect(csrf.status == 403)
        #expect(try !daemon.feed.readFile().contains("CSRF"))
        let same = try daemon.request(
            "POST", "/v1/stores/default/books", headers: ["Origin": "http://127.0.0.1:\(daemon.port)"],
            body: #"{"name":"Same","author":"x"}"#)
        #expect(same.status == 201)
        #expect(try daemon.request("OPTIONS", "/v1/stores").headers["access-control-allow-origin"] == nil)
        let page = try daemon.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("<table"))
    }

    @Test("malformed HTTP and bodies get a 4xx, and the daemon keeps serving")
    func malformed() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let garbage = try HTTPTestClient(port: daemon.port)
        garbage.send("NOT A REQUEST\r\n\r\n")
        #expect((garbage.response(timeout: 10)?.status ?? 400) / 100 == 4)

        let huge = try HTTPTestClient(port: daemon.port)
        huge.send(
            "GET /v1/stores HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n"
        )
        if let response = huge.response(timeout: 10) { #expect(response.status / 100 == 4) }

        #expect(try daemon.request("POST", "/v1/stores/default/books", body: "{not json").status == 400)
        let badUTF8 = try HTTPTestClient(port: daemon.port)
        badUTF8.send(
            "POST", "/v1/stores/default/books", port: daemon.port, headers: ["Connection": "close"],
            body: Array(#"{"name":""#.utf8) + [0xFF, 0xFE] + Array(#"","author":"x"}"#.utf8))
        let refused = try #require(badUTF8.response())
        #expect(refused.status == 400)
        #expect(refused.text.contains("invalid-utf8"))
        let big = String(repeating: "x", count: 2 << 20)
        #expect(
            try daemon.request("POST", "/v1/stores/default/books", body: #"{"name":"\#(big)","author":"x"}"#).status
                == 413)

        // Still serving, over keep-alive too.
        let client = try HTTPTestClient(port: daemon.port)
        for _ in 0..<3 {
            client.send("GET", "/v1/stores/default/books/b1", port: daemon.port)
            #expect(client.response()?.status == 200)
        }
        #expect(try daemon.feed.readFile().split(separator: "\n").count == 3)
    }

    @Test("slowloris: heads trickling a byte at a time do not keep others waiting; idle ones are cut off")
    func slowloris() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows, settings: ["idle_timeout_seconds=2"])
        defer { daemon.stop() }
        let slow = try (0..<8).map { _ in try HTTPTestClient(port: daemon.port) }
        for client in slow { client.send("GET /v1/stores HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nX-Slow: ") }
        // While they trickle (a byte each half second: never idle, never a whole head) others are served.
        for _ in 0..<4 {
            for client in slow { client.send("a") }
            #expect(try daemon.request("GET", "/v1/stores/default/books/b1").status == 200)
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(slow.allSatisfy { !$0.closed })
        // Once they stop sending, each is cut off after the idle timeout; booksd goes on serving.
        #expect(
            await eventually(timeout: 20) {
                for client in slow { client.pump(timeout: 0.1) }
                return slow.allSatisfy(\.closed)
            })
        #expect(try daemon.request("GET", "/v1/stores/default/books/b1").status == 200)
    }
}

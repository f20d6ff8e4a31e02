import BooksTestSupport
import Foundation
import Glibc
import Testing

/// The history endpoints against a real booksd: `GET …/log` (the socket's `log`) and
/// `GET …/books?at=` (the list as it was, streamed like the list).
@Suite("HTTP history", .serialized) struct HTTPHistoryTests {
    static let rows = ["b1|Emma|Jane Austen", "b2|Dune|Frank Herbert"]

    static func seqs(_ body: [String: Any]) -> [Int] {
        (body["changes"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
    }

    static func ids(_ body: [String: Any]) -> [String] {
        (body["books"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test("GET …/log with since, until, limit and id; GET …/books?at= the list as it was; bad WHEN is 400")
    func logAndAsOf() async throws {
        let daemon = try await HTTPDaemon(rows: Self.rows)
        defer { daemon.stop() }
        let store = "/v1/stores/default"
        for name in ["One", "Two", "Three"] {
            let made = try daemon.request(
                "POST", "\(store)/books", body: #"{"id":"\#(name)","name":"\#(name)","author":"x"}"#)
            #expect(made.status == 201)
        }
        _ = try daemon.request("PUT", "\(store)/books/b1", body: #"{"name":"Emma (2nd ed.)"}"#)

        let all = try daemon.request("GET", "\(store)/log")
        #expect(all.status == 200)
        #expect(all.headers["content-type"] == "application/json")
        let body = daemon.json(all)
        #expect(Self.seqs(body) == [1, 2, 3, 4])
        #expect(body["more"] as? Bool == false)
        #expect(body["seq"] as? Int == 4 && body["epoch"] is String)
        let first = (body["changes"] as? [[String: Any]])?.first
        #expect(((first?["inserted"] as? [[String: Any]])?.first?["name"] as? String) == "One")
        #expect(first?["source"] as? String == "client")

        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?since=2"))) == [3, 4])
        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?since=1&until=3"))) == [2, 3])
        let newest = daemon.json(try daemon.request("GET", "\(store)/log?limit=1"))
        #expect(Self.seqs(newest) == [4] && newest["more"] as? Bool == true)
        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?id=b1"))) == [4])
        let epoch = try #require(body["epoch"] as? String)
        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?since=\(epoch):3"))) == [4])
        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?since=-1h"))) == [1, 2, 3, 4])
        #expect(Self.seqs(daemon.json(try daemon.request("GET", "\(store)/log?since=2999-01-01T00:00Z"))) == [])
        #expect(try daemon.request("GET", "\(store)/log?since=soon").status == 400)
        #expect(try daemon.request("GET", "\(store)/log?limit=0").status == 400)
        #expect(try daemon.request("POST", "\(store)/log").status == 405)
        #expect(try daemon.request("GET", "/v1/stores/nowhere/log").status == 404)

        let before = daemon.json(try daemon.request("GET", "\(store)/books?at=1"))
        #expect(Self.ids(before) == ["b1", "b2", "One"])
        #expect(before["seq"] as? Int == 1)
        let start = daemon.json(try daemon.request("GET", "\(store)/books?at=0&sort=-id"))
        #expect(Self.ids(start) == ["b2", "b1"])
        let paged = daemon.json(try daemon.request("GET", "\(store)/books?at=3&limit=2&after=2"))
        #expect(Self.ids(paged) == ["One", "Two"])
        let renamed = daemon.json(try daemon.request("GET", "\(store)/books?at=now&name=emma"))
        #expect((renamed["books"] as? [[String: Any]])?.first?["name"] as? String == "Emma (2nd ed.)")
        #expect(try daemon.request("GET", "\(store)/books?at=later").status == 400)
        #expect(try daemon.request("GET", "\(store)/books?at=\(UUID().uuidString):1").status == 400)
    }
}

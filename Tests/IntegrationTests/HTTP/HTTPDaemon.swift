import BooksTestSupport
import Foundation
import Glibc
import Testing

/// A `FeedDaemon` with the HTTP API on a free loopback port.
final class HTTPDaemon: @unchecked Sendable {
    let feed: FeedDaemon
    let port: Int32

    /// `alsoListen`: more `http_listen` addresses beside the loopback port; `arguments`: more of booksd's.
    init(
        rows: [String] = [], settings: [String] = [], alsoListen: [String] = [], arguments: [String] = []
    ) async throws {
        (feed, port) = try await Self.start(
            rows: rows, settings: settings, alsoListen: alsoListen, arguments: arguments)
        guard await eventually(timeout: 10, { NATSServerProcess.accepts(port: port) }) else {
            throw TestSupportError("booksd does not listen for HTTP on \(port): \(feed.log)")
        }
    }

    /// A daemon on a free port; a free port may be taken by another test's daemon before this
    /// one binds it, so another is tried.
    private static func start(
        rows: [String], settings: [String], alsoListen: [String], arguments: [String]
    ) async throws -> (FeedDaemon, Int32) {
        var attempt = 0
        while true {
            let port = NATSServerProcess.freePort()
            let listen = (["127.0.0.1:\(port)"] + alsoListen).joined(separator: ",")
            do {
                let feed = try await FeedDaemon(
                    rows: rows, settings: ["http_listen=\(listen)"] + settings, arguments: arguments)
                return (feed, port)
            } catch  where attempt < 2 {
                attempt += 1
            }
        }
    }

    /// One request on a fresh connection.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) throws -> HTTPTestResponse {
        try HTTPTestClient.request(method, path, port: port, headers: headers, body: body)
    }

    /// The JSON object of a response body.
    func json(_ response: HTTPTestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// A change feed connection of `store` (or `path`), its head read.
    func changes(
        _ store: String = "default", query: String = "", headers: [String: String] = [:], path: String? = nil
    ) throws -> (HTTPTestClient, HTTPTestResponse) {
        let client = try HTTPTestClient(port: port)
        client.send(
            "GET", (path ?? "/v1/stores/\(store)/changes") + query, port: port,
            headers: ["Accept": "text/event-stream"].merging(headers) { $1 })
        guard let head = client.streamHead() else { throw TestSupportError("no feed head") }
        return (client, head)
    }

    func stop() { feed.stop() }
}

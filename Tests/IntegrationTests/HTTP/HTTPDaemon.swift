import BooksTestSupport
import Foundation
import Glibc
import Testing

/// A `FeedDaemon` with the HTTP API on a free loopback port.
final class HTTPDaemon: @unchecked Sendable {
    let feed: FeedDaemon
    let port: Int32

    init(rows: [String] = [], settings: [String] = []) async throws {
        let port = NATSServerProcess.freePort()
        self.port = port
        feed = try await FeedDaemon(rows: rows, settings: ["http_listen=127.0.0.1:\(port)"] + settings)
        guard await eventually(timeout: 10, { NATSServerProcess.accepts(port: port) }) else {
            throw TestSupportError("booksd does not listen for HTTP on \(port): \(feed.log)")
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

    /// A change feed connection of `store`, its head read.
    func changes(
        _ store: String = "default", query: String = "", headers: [String: String] = [:]
    ) throws -> (HTTPTestClient, HTTPTestResponse) {
        let client = try HTTPTestClient(port: port)
        client.send(
            "GET", "/v1/stores/\(store)/changes\(query)", port: port,
            headers: ["Accept": "text/event-stream"].merging(headers) { $1 })
        guard let head = client.streamHead() else { throw TestSupportError("no feed head") }
        return (client, head)
    }

    func stop() { feed.stop() }
}

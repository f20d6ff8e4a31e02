import FoundationEssentials

/// What the HTTP server library parsed of one request before its body: the method, the path
/// (percent-decoded, without the query), the query arguments and the headers.
///
/// A value with no I/O behind it: `HTTPRouter` decides on it alone, so every routing and
/// security decision is testable without a socket.
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The decoded path, e.g. `/v1/stores/default/books/b1`.
    public var path: String
    /// The decoded query arguments; a name given twice keeps its last value.
    public var query: [String: String]
    /// The headers, names lowercased; a header given twice keeps its last value.
    public var headers: [String: String]
    /// When the request came (relative history times such as `since=-10m` count back from it).
    public var receivedAt: Date

    /// A request head; header names are lowercased here.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        receivedAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.receivedAt = receivedAt
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
    }

    /// The value of header `name` (any case), or nil.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// True for methods that change something (`POST`, `PUT`, `PATCH`, `DELETE`).
    public var isMutating: Bool { ["POST", "PUT", "PATCH", "DELETE"].contains(method) }
}

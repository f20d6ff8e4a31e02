import FoundationEssentials

/// One complete HTTP response: status, headers and body. Streamed bodies (a list, a change feed)
/// are not this type: see `HTTPListBody` and `EventStream`.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, in order (name, value).
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header called `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// A JSON response: `body` with `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8], headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPHeader.jsonContentType] + headers, body: body)
    }

    /// A JSON response of an encodable value.
    public static func json(_ status: Int, encoding value: some Encodable, headers: [HTTPHeader] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return .json(status, Array(data) + [UInt8(ascii: "\n")], headers: headers)
    }

    /// An error response: `{"error":{"code":…,"message":…}}` (plus the current book and version
    /// of a conflict) with `status`.
    public static func error(
        _ status: Int, code: String, message: String, current: HTTPBook? = nil, headers: [HTTPHeader] = []
    ) -> HTTPResponse {
        .json(
            status, encoding: HTTPErrorBody(error: .init(code: code, message: message, current: current)),
            headers: headers)
    }
}

/// A response is also what a pure step throws or fails with when it refuses a request (a 4xx).
extension HTTPResponse: Error {}

/// One response header.
public struct HTTPHeader: Sendable, Hashable {
    /// Its name.
    public var name: String
    /// Its value.
    public var value: String

    /// A header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `Content-Type: application/json`.
    public static let jsonContentType = HTTPHeader("Content-Type", "application/json")
}

/// The body of every error response.
public struct HTTPErrorBody: Codable, Sendable, Hashable {
    /// The error.
    public var error: Detail

    /// What went wrong: the protocol's error code (or an HTTP one such as `bad-host`), a sentence,
    /// and for a stale version the book as it is now.
    public struct Detail: Codable, Sendable, Hashable {
        /// A stable code (the socket protocol's codes, plus HTTP's own).
        public var code: String
        /// One sentence for a person.
        public var message: String
        /// A conflict's current book, with its version.
        public var current: HTTPBook?
    }
}

/// A book as the HTTP API shows it: the socket's fields plus its version (the `ETag`).
public struct HTTPBook: Codable, Sendable, Hashable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// Its author.
    public var author: String
    /// Its version (what `If-Match` names).
    public var version: UInt64?

    /// A book.
    public init(id: String, name: String, author: String, version: UInt64?) {
        self.id = id
        self.name = name
        self.author = author
        self.version = version
    }
}

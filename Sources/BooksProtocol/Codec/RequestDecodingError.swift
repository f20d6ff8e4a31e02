/// Why a request line could not become a `Request`, with everything needed to answer it.
public struct RequestDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request's id when it could be read (so the error reply can carry it), else nil.
    public var id: String?
    /// The error to send back.
    public var error: ProtocolError

    /// Creates a decoding error.
    public init(id: String?, error: ProtocolError) {
        self.id = id
        self.error = error
    }

    /// True when the line was a protocol violation after which the server disconnects
    /// (everything except `unknown-op`).
    public var requiresDisconnect: Bool { error.code.isProtocolViolation }

    /// The error reply for this line: `{"id": id-or-null, "ok": false, "error": …}`.
    public var reply: Reply { .failure(id, error) }

    /// The error and the id, for logs.
    public var description: String { "\(error) (id: \(id ?? "null"))" }
}

extension ProtocolError.ErrorCode {
    /// True for the codes after which the daemon closes the connection: `bad-request`,
    /// `invalid-utf8`, `too-deep`, `too-large`, `hello-required`, `unsupported-version` and
    /// `limit-exceeded`.
    public var isProtocolViolation: Bool {
        switch self {
        case .badRequest, .invalidUTF8, .tooDeep, .tooLarge, .helloRequired, .unsupportedVersion, .limitExceeded:
            return true
        default:
            return false
        }
    }
}

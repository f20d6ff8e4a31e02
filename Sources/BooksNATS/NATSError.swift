import CNats

/// A failure of the NATS client library or of a JetStream request, with the library's own words.
public struct NATSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done ("connecting to nats://…", "publishing to books.default.changes").
    public var context: String
    /// The library's status code (`natsStatus`), 0 when the failure is BookSync's own check.
    public var status: Int32
    /// The JetStream error code (`jsErrCode`), 0 when none.
    public var jetStreamCode: Int32
    /// The library's explanation.
    public var text: String

    /// Creates an error from its parts.
    public init(context: String, status: Int32 = 0, jetStreamCode: Int32 = 0, text: String) {
        self.context = context
        self.status = status
        self.jetStreamCode = jetStreamCode
        self.text = text
    }

    /// The error of a failed library call: its status text plus the library's last error detail.
    /// `serverText`, when given, is the server's own explanation (an asynchronous acknowledgement's).
    init(
        _ context: String, _ status: natsStatus, jetStream: jsErrCode = jsErrCode(rawValue: 0),
        serverText: String? = nil
    ) {
        var detail = String(cString: natsStatus_GetText(status))
        if let serverText, !serverText.isEmpty {
            self.init(
                context: context, status: Int32(bitPattern: status.rawValue),
                jetStreamCode: Int32(bitPattern: jetStream.rawValue), text: detail + ": " + serverText)
            return
        }
        var lastStatus = NATS_OK
        if let last = nats_GetLastError(&lastStatus) {
            let text = Self.withoutSourceLocation(String(cString: last))
            if text.hasPrefix(detail) {
                detail = text.isEmpty ? detail : text  // the same words, perhaps with more after them
            } else if !text.isEmpty {
                detail += ": " + text
            }
        }
        self.init(
            context: context, status: Int32(bitPattern: status.rawValue),
            jetStreamCode: Int32(bitPattern: jetStream.rawValue), text: detail)
    }

    /// The library's last-error text without its leading `(conn.c:2088): ` (where in its
    /// source it failed), which would otherwise make the same words appear twice.
    static func withoutSourceLocation(_ text: String) -> String {
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")"),
            text[text.index(after: close)...].hasPrefix(": "), text[..<close].contains(":")
        else { return text }
        return String(text[text.index(close, offsetBy: 3)...])
    }

    /// True when the request timed out (the server may still have done it).
    public var isTimeout: Bool { status == Int32(bitPattern: NATS_TIMEOUT.rawValue) }

    /// True when the server refused the connection's credentials (retrying cannot help).
    public var isAuthorizationFailure: Bool {
        let lowered = text.lowercased()
        return status == Int32(bitPattern: NATS_NOT_PERMITTED.rawValue) || lowered.contains("authorization violation")
            || lowered.contains("authentication")
    }

    /// True when nobody subscribes to the request's subject.
    public var isNoResponders: Bool { status == Int32(bitPattern: NATS_NO_RESPONDERS.rawValue) }

    /// True when JetStream is not enabled for the account or server.
    public var isJetStreamUnavailable: Bool {
        jetStreamCode == 10039 || jetStreamCode == 10076 || status == Int32(bitPattern: NATS_NO_RESPONDERS.rawValue)
    }

    /// True for an existing configuration that conflicts with the one asked for (BookSync's own
    /// check, not the library's).
    public var isConflict: Bool { status == 0 && jetStreamCode == 0 && context.contains("conflicting") }

    /// "`context`: `text`".
    public var description: String { "\(context): \(text)" }
}

/// Throws a `NATSError` for every status but `NATS_OK`.
@inline(__always)
func check(_ status: natsStatus, _ context: @autoclosure () -> String) throws(NATSError) {
    if status != NATS_OK { throw NATSError(context(), status) }
}

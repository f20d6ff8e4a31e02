import FoundationEssentials

/// A line from the daemon: the reply to a request, or an event pushed to a subscriber.
public enum DaemonMessage: Sendable, Hashable {
    /// The one reply to a request (matched to it by `Reply.id`).
    case reply(Reply)
    /// A change-feed event (after `subscribe`).
    case event(Event)
}

/// Decodes daemon-to-client lines (replies and events): the inverse of `MessageEncoder`.
///
/// Guarantees:
/// - For every `Reply` `r` and `Event` `e`, `decode(MessageEncoder.encode(r)) == .reply(r)` and
///   `decode(MessageEncoder.encode(e)) == .event(e)`. The line may carry its `\n` or not.
/// - A line is an event exactly when its top-level object has an `event` key; it is parsed once.
/// - Anything else (invalid UTF-8, not JSON, not an object, a missing or ill-typed field, an
///   unknown event kind or error code) throws `MessageDecodingError`, which names the field and
///   quotes the start of the line. Unknown extra keys are ignored (forward compatibility).
/// - Lines are decoded by a hand-written fast path (`FastMessageDecoder`, no Foundation); a line
///   it does not fully understand (including every invalid one) goes to Foundation's
///   `JSONDecoder`, which gives the same values and explains failures. The `JSONDecoder` is
///   created once per `MessageDecoder`; `decode` does not mutate it, so sharing is safe.
public struct MessageDecoder: Sendable {
    /// How many bytes of an unreadable line `MessageDecodingError.excerpt` quotes.
    public static let excerptLength = 200

    private let decoder = JSONDecoder()

    /// Creates a decoder.
    public init() {}

    /// Decodes one line.
    public func decode(_ line: [UInt8]) throws(MessageDecodingError) -> DaemonMessage {
        if let message = line.withUnsafeBufferPointer(FastMessageDecoder.decode) { return message }
        return try decodeWithFoundation(line)
    }

    /// Decodes one line with `JSONDecoder` only (the reference the fast path is tested against).
    public func decodeWithFoundation(_ line: [UInt8]) throws(MessageDecodingError) -> DaemonMessage {
        let data = Data(line)
        do {
            return try decoder.decode(Either.self, from: data).message
        } catch {
            throw diagnose(line, data, error)
        }
    }

    /// Decodes either shape from one parse of the line.
    private struct Either: Decodable {
        let message: DaemonMessage

        init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Probe.Key.self)
            message = keys.contains(.event) ? .event(try Event(from: decoder)) : .reply(try Reply(from: decoder))
        }
    }

    /// The top level of a line, read only to explain a failure.
    private struct Probe: Decodable {
        enum Key: String, CodingKey { case event }
        let isEvent: Bool

        init(from decoder: any Decoder) throws {
            isEvent = try decoder.container(keyedBy: Key.self).contains(.event)
        }
    }

    private func diagnose(_ line: [UInt8], _ data: Data, _ error: any Error) -> MessageDecodingError {
        let excerpt = String(decoding: line.prefix(Self.excerptLength), as: UTF8.self)
        func failure(_ kind: MessageDecodingError.Kind, _ message: String) -> MessageDecodingError {
            MessageDecodingError(kind: kind, message: message, excerpt: excerpt, byteCount: line.count)
        }
        if String(validating: line, as: UTF8.self) == nil {
            return failure(.invalidUTF8, "the line is not valid UTF-8")
        }
        let probe: Probe
        do {
            probe = try decoder.decode(Probe.self, from: data)
        } catch DecodingError.typeMismatch(_, let ctx) where ctx.codingPath.isEmpty {
            return failure(.notAnObject, "the line is JSON but not an object")
        } catch {
            return failure(.invalidJSON, "the line is not JSON (\(DecodingErrorText.describe(error, root: "line")))")
        }
        let root = probe.isEvent ? "event" : "reply"
        if case DecodingError.dataCorrupted(let ctx) = error, ctx.codingPath.isEmpty {
            // The line parsed above, so this is `JSONDecoder` reporting (without a path) a number
            // that does not fit its field: negative, fractional or too big for an integer.
            return failure(.invalidField, "\(root): a number does not fit its field")
        }
        return failure(.invalidField, DecodingErrorText.describe(error, root: root))
    }
}

/// A line from the daemon that is not a valid reply or event (see `MessageDecoder`).
public struct MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the line.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not valid UTF-8.
        case invalidUTF8
        /// The text is not JSON.
        case invalidJSON
        /// The JSON is not an object (an array, a string, a number …).
        case notAnObject
        /// An object, but a field is missing, has the wrong type or an unknown value.
        case invalidField
    }

    /// What was wrong with the line.
    public var kind: Kind
    /// Which field failed and how, e.g. `result.books[2].name: expected String, found null`.
    public var message: String
    /// The first `MessageDecoder.excerptLength` bytes of the line, as text (invalid UTF-8 repaired).
    public var excerpt: String
    /// The length of the whole line in bytes.
    public var byteCount: Int

    /// Creates a decoding error.
    public init(kind: Kind, message: String, excerpt: String, byteCount: Int) {
        self.kind = kind
        self.message = message
        self.excerpt = excerpt
        self.byteCount = byteCount
    }

    /// `unreadable line from daemon (MESSAGE): EXCERPT`, with `…` when the excerpt is cut short.
    public var description: String {
        let cut = byteCount > MessageDecoder.excerptLength ? "… (\(byteCount) bytes)" : ""
        return "unreadable line from daemon (\(message)): \(excerpt)\(cut)"
    }
}

import BooksProtocol
import FoundationEssentials

/// A line received from the daemon: either the reply to a request or a pushed event.
enum IncomingLine: Sendable {
    case reply(Reply)
    case event(Event)

    /// Decodes either shape from one parse of the line: a line with an `event` key is an event.
    private struct Either: Decodable {
        enum Key: String, CodingKey { case event }
        let line: IncomingLine

        init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Key.self)
            line = keys.contains(.event) ? .event(try Event(from: decoder)) : .reply(try Reply(from: decoder))
        }
    }

    /// Decodes one line; throws `BooksClientError.protocolError` when it is neither a reply nor an event.
    static func decode(_ bytes: [UInt8]) throws(BooksClientError) -> IncomingLine {
        do {
            return try JSONDecoder().decode(Either.self, from: Data(bytes)).line
        } catch {
            let text = String(decoding: bytes.prefix(200), as: UTF8.self)
            throw .protocolError(ProtocolError(.badRequest, "unreadable line from daemon: \(text) (\(error))"))
        }
    }
}

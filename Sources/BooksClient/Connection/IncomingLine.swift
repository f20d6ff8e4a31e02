import BooksProtocol
import FoundationEssentials

/// A line received from the daemon: either the reply to a request or a pushed event.
enum IncomingLine: Sendable {
    case reply(Reply)
    case event(Event)

    private struct Probe: Decodable { var event: String? }

    /// Decodes one line; throws `BooksClientError.protocolError` when it is neither a reply nor an event.
    static func decode(_ bytes: [UInt8]) throws(BooksClientError) -> IncomingLine {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        do {
            if try decoder.decode(Probe.self, from: data).event != nil {
                return .event(try decoder.decode(Event.self, from: data))
            }
            return .reply(try decoder.decode(Reply.self, from: data))
        } catch {
            let text = String(decoding: bytes.prefix(200), as: UTF8.self)
            throw .protocolError(ProtocolError(.badRequest, "unreadable line from daemon: \(text) (\(error))"))
        }
    }
}

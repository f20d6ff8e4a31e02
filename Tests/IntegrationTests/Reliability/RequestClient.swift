import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation

/// The fault suite's protocol client: typed requests, replies and events over the shared raw
/// `LineClient` (so the tests see exactly what any client sees, and can still misbehave at the
/// byte level with `sendRaw`).
final class RequestClient {
    let connection: LineClient
    private var nextID = 0
    /// Events received while waiting for replies.
    var events: [Event] = []

    /// Connects to `socket` and, with `hello`, says hello (throws unless the reply is ok).
    init(socket: String, hello: Bool = true, timeout: Double = 5) throws {
        connection = try LineClient(path: socket)
        if hello {
            let reply = try request(
                Request(id: "h", op: .hello, version: ProtocolVersion.current, client: "reliability"), timeout: timeout)
            guard reply.ok else { throw TestSupportError("hello refused: \(reply)") }
        }
    }

    /// Closes the connection (once).
    func close() { connection.close() }

    /// Sends `bytes` as they are (15 s for room, as the socket's old send timeout).
    func sendRaw(_ bytes: [UInt8]) throws {
        guard connection.sendRaw(bytes, timeout: 15) else {
            throw TestSupportError("send to \(connection.path) failed")
        }
    }

    func send(_ request: Request) throws {
        try sendRaw(try MessageEncoder.encode(request))
    }

    func makeID() -> String {
        nextID += 1
        return "r\(nextID)"
    }

    /// Reads one line (without the newline), or nil on timeout / end of stream.
    func readLine(timeout: Double) -> [UInt8]? { connection.readLineBytes(timeout: timeout) }

    /// Reads the next message: a reply or an event.
    func readMessage(timeout: Double) -> Message? {
        guard let line = readLine(timeout: timeout) else { return nil }
        let data = Data(line)
        if let event = try? JSONDecoder().decode(Event.self, from: data),
            line.starts(with: Array("{\"event\"".utf8)) || (try? JSONDecoder().decode(Reply.self, from: data)) == nil
        {
            return .event(event)
        }
        if let reply = try? JSONDecoder().decode(Reply.self, from: data) { return .reply(reply) }
        return .other(String(decoding: line, as: UTF8.self))
    }

    enum Message {
        case reply(Reply)
        case event(Event)
        case other(String)
    }

    /// Sends `request` and waits for the reply with its id (events seen meanwhile are kept).
    func request(_ request: Request, timeout: Double = 10) throws -> Reply {
        try send(request)
        return try awaitReply(id: request.id, timeout: timeout)
    }

    func awaitReply(id: String, timeout: Double = 10) throws -> Reply {
        let deadline = MonotonicClock.seconds() + timeout
        while MonotonicClock.seconds() < deadline {
            switch readMessage(timeout: deadline - MonotonicClock.seconds()) {
            case .reply(let reply) where reply.id == id: return reply
            case .reply: continue
            case .event(let e): events.append(e)
            case .other: continue
            case nil: throw TestSupportError("no reply to \(id) (connection closed or timeout)")
            }
        }
        throw TestSupportError("timeout waiting for reply \(id)")
    }

    func status() throws -> BooksProtocol.DaemonStatus {
        let reply = try request(Request(id: makeID(), op: .status))
        guard let status = reply.result?.status else { throw TestSupportError("status failed: \(reply)") }
        return status
    }

    func list() throws -> [Book] {
        let reply = try request(Request(id: makeID(), op: .list))
        guard reply.ok, let books = reply.result?.books else { throw TestSupportError("list failed: \(reply)") }
        return books
    }

    func insert(_ books: [Book]) throws -> Reply {
        try request(
            Request(
                id: makeID(), op: .insert, books: books.map { BookDraft(id: $0.id, name: $0.name, author: $0.author) }))
    }

    func update(_ patches: [BookPatch]) throws -> Reply {
        try request(Request(id: makeID(), op: .update, patches: patches))
    }

    func delete(_ ids: [String]) throws -> Reply {
        try request(Request(id: makeID(), op: .delete, ids: ids))
    }

    func get(_ id: String) throws -> (Book, UInt64)? {
        let reply = try request(Request(id: makeID(), op: .get, ids: [id]))
        guard reply.ok, let book = reply.result?.books?.first, let v = reply.result?.versions?.first else { return nil }
        return (book, v)
    }
}

import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Synchronization

@testable import BooksDaemon

extension TemporaryDirectory {
    /// Where a test's socket server listens.
    var socketPath: String { file("books.sock") }
}

/// A client of the socket server, on `LineClient`, that decodes what it reads. Reads (and
/// `isClosedByServer`) give up after `timeoutSeconds`.
final class TestClient {
    private let connection: LineClient
    private let timeout: Double

    /// Connects to `path`; nil when nothing accepts there.
    init?(path: String, timeoutSeconds: Double = 5) {
        guard let connection = try? LineClient(path: path) else { return nil }
        self.connection = connection
        timeout = timeoutSeconds
    }

    var fd: Int32 { connection.fd }

    /// Sends everything (or as much as the peer takes before closing, or within `timeout`
    /// seconds); returns false on error or timeout.
    @discardableResult
    func send(_ bytes: [UInt8], timeout: Double = 15) -> Bool { connection.sendRaw(bytes, timeout: timeout) }

    @discardableResult
    func send(_ text: String) -> Bool { connection.send(text) }

    /// The next line, or nil on EOF, reset or timeout.
    func readLine() -> [UInt8]? { connection.readLineBytes(timeout: timeout) }

    func read<T: Decodable>(_ type: T.Type) -> T? {
        guard let line = readLine() else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(line))
    }

    func readReply() -> Reply? { read(Reply.self) }
    func readEvent() -> Event? { read(Event.self) }

    func hello(id: String = "h") -> Reply? {
        send(#"{"id":"\#(id)","op":"hello","version":1,"client":"test"}"#)
        return readReply()
    }

    /// True when the server closed the connection (EOF or reset) after any remaining lines.
    func isClosedByServer() -> Bool { connection.isClosedByPeer(timeout: timeout) }
}

/// A delegate answering from a fixed in-memory list of books.
final class TestDelegate: SocketServerDelegate {
    let books: [Book]
    let epoch = "test-epoch"
    let seq = Atomic<UInt64>(0)
    let closed = Locked<[ConnectionID]>([])
    let received = Locked<[Request]>([])

    init(books: [Book] = TestDelegate.sampleBooks) { self.books = books }

    static let sampleBooks = [
        Book(id: "1", name: "Dune", author: "Frank Herbert"),
        Book(id: "2", name: "Emma", author: "Jane Austen"),
        Book(id: "3", name: "Persuasion", author: "Jane Austen"),
    ]

    func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials
    ) {
        received.withLock { $0.append(request) }
        let seq = self.seq.load(ordering: .relaxed)
        switch request.op {
        case .ping:
            server.send(.success(request.id, ReplyResult(epoch: epoch, seq: seq)), to: connection)
        case .list, .query:
            let matching = BookQuery(filter: request.filter ?? .all).apply(to: books)
            server.send(
                .success(request.id, ReplyResult(epoch: epoch, seq: seq, books: matching, total: matching.count)),
                to: connection)
        case .subscribe:
            let filter = request.filter ?? .all
            let snapshot = Event(event: .snapshot, epoch: epoch, seq: seq, books: books.filter(filter.matches))
            server.startSubscription(
                connection, reply: .success(request.id, ReplyResult(epoch: epoch, seq: seq)),
                filter: filter, initialEvents: [snapshot], afterSeq: seq)
        case .unsubscribe:
            server.stopSubscription(connection, reply: .success(request.id, ReplyResult(epoch: epoch, seq: seq)))
        default:
            server.send(.failure(request.id, ProtocolError(.internalError, "not in tests")), to: connection)
        }
    }

    func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) {
        (epoch, seq.load(ordering: .relaxed))
    }

    func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {
        closed.withLock { $0.append(connection) }
    }
}

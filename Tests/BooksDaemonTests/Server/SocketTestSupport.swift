import BooksCore
import BooksProtocol
import CLinux
import FoundationEssentials
import Glibc
import Synchronization
@testable import BooksDaemon

/// A private temporary directory for one test's socket.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() {
        var template = Array("/tmp/bsrv.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    var socketPath: String { path + "/books.sock" }

    deinit {
        _ = unlink(path + "/books.sock")
        _ = rmdir(path)
    }
}

/// A blocking test client with a 5 s receive timeout.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init?(path: String, timeoutSeconds: Int = 5) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        let length = books_make_sockaddr_un(path, &addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        guard rc == 0 else { Glibc.close(fd); return nil } // before `self.fd` is set: deinit never runs
        self.fd = fd
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Sends everything (or as much as the peer takes before closing); returns false on error.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array((text + "\n").utf8)) }

    /// The next line, or nil on EOF, reset or timeout.
    func readLine() -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

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
    func isClosedByServer() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET || errno == EPIPE }
        }
    }
}

/// A delegate answering from a fixed in-memory list of books.
final class TestDelegate: SocketServerDelegate {
    let books: [Book]
    let epoch = "test-epoch"
    let seq = Atomic<UInt64>(0)
    let closed = Mutex<[ConnectionID]>([])
    let received = Mutex<[Request]>([])

    init(books: [Book] = TestDelegate.sampleBooks) { self.books = books }

    static let sampleBooks = [
        Book(id: "1", name: "Dune", author: "Frank Herbert"),
        Book(id: "2", name: "Emma", author: "Jane Austen"),
        Book(id: "3", name: "Persuasion", author: "Jane Austen"),
    ]

    func server(_ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials) {
        received.withLock { $0.append(request) }
        let seq = self.seq.load(ordering: .relaxed)
        switch request.op {
        case .ping:
            server.send(.success(request.id, ReplyResult(epoch: epoch, seq: seq)), to: connection)
        case .list, .query:
            let matching = BookQuery(filter: request.filter ?? .all).apply(to: books)
            server.send(.success(request.id, ReplyResult(epoch: epoch, seq: seq, books: matching, total: matching.count)),
                        to: connection)
        case .subscribe:
            let filter = request.filter ?? .all
            let snapshot = Event(event: .snapshot, epoch: epoch, seq: seq, books: books.filter(filter.matches))
            server.startSubscription(connection, reply: .success(request.id, ReplyResult(epoch: epoch, seq: seq)),
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

/// Polls `condition` for up to `seconds`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock().now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock().now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

import BooksCore
import BooksPlatform
import BooksProtocol
import CLinux
import FoundationEssentials

@testable import BooksClient

#if canImport(Glibc)
import Glibc
#endif

/// A tiny in-process stand-in for booksd on a real Unix socket, for tests.
///
/// One accept thread serves connections one after another: each request line is decoded, recorded
/// with its connection number, and answered with the lines `handler` returns (then the connection
/// is closed if asked).
final class FakeServer: Sendable {
    struct Action: Sendable {
        var lines: [String]
        var close = false
    }

    let path: String
    private let listenFD: Int32
    private let handler: @Sendable (_ connection: Int, _ request: Request) -> Action
    private let log = Locked<[(Int, Request)]>([])
    private let clientFD = Locked<Int32>(-1)

    init(path: String? = nil, handler: @escaping @Sendable (_ connection: Int, _ request: Request) -> Action) throws {
        self.path = path ?? "/tmp/booksfake-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        self.handler = handler
        unlink(self.path)
        listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        let length = books_make_sockaddr_un(self.path, &address)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(length)) }
        }
        guard rc == 0, listen(listenFD, 8) == 0 else { throw BooksClientError.io(operation: "bind", errno: errno) }
        _ = try DedicatedThread.start(name: "fake-booksd") { [self] in acceptLoop() }
    }

    /// Every request received so far, with the number of its connection (0-based).
    var requests: [(connection: Int, request: Request)] { log.withLock { $0 } }

    /// Stops accepting and drops the current connection.
    func stop() {
        shutdown(listenFD, Int32(SHUT_RDWR))
        clientFD.withLock { fd in if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        unlink(self.path)
    }

    private func acceptLoop() {
        var number = 0
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            clientFD.withLock { $0 = fd }
            serve(fd, number)
            clientFD.withLock { $0 = -1 }
            Glibc.close(fd)
            number += 1
        }
        Glibc.close(listenFD)
    }

    private func serve(_ fd: Int32, _ number: Int) {
        var framer = LineFramer()
        let decoder = RequestDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            for frame in framer.feed(Array(buffer[0..<n])) {
                guard case .line(let line) = frame, let request = try? decoder.decode(line) else { return }
                log.withLock { $0.append((number, request)) }
                let action = handler(number, request)
                for text in action.lines {
                    let bytes = Array((text + "\n").utf8)
                    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                if action.close { return }
            }
        }
    }

    // MARK: Line builders

    static func encode<T: Encodable>(_ value: T) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
    }

    static func hello(_ request: Request, epoch: String = "E1", seq: UInt64 = 1) -> String {
        encode(Reply.success(request.id, ReplyResult(protocolVersion: 1, server: "fake 0", epoch: epoch, seq: seq)))
    }

    static func ok(_ request: Request, _ result: ReplyResult = ReplyResult()) -> String {
        encode(Reply.success(request.id, result))
    }

    static func fail(_ request: Request, _ error: ProtocolError) -> String {
        encode(Reply.failure(request.id, error))
    }

    static func event(_ event: Event) -> String { encode(event) }
}

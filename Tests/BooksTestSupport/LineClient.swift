import BooksCore
import BooksProtocol
import Glibc

/// A raw client of the daemon's newline-delimited JSON protocol over a Unix socket: it sends
/// bytes as given (so tests can misbehave at the byte level) and reads lines with timeouts
/// through `BooksProtocol.LineFramer`. The socket is non-blocking; `send` waits for room, `enqueue`
/// never does (for event loops driving many connections). One owner; not thread-safe.
public final class LineClient: @unchecked Sendable {
    /// The connected socket.
    public let fd: Int32
    /// The socket path connected to.
    public let path: String
    private let reader: LineReader
    private var outbox: [UInt8] = []
    /// True once `close()` was called.
    public private(set) var isClosed = false

    /// Connects to the Unix socket at `path`; throws when nothing accepts there.
    /// - Parameter receiveBufferSize: `SO_RCVBUF` to set before connecting (a slow reader).
    public init(path: String, receiveBufferSize: Int32? = nil) throws {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw TestSupportError("socket: \(TestFiles.errorText())") }
        if var size = receiveBufferSize {
            setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path: path) } catch {
            Glibc.close(s)
            throw error
        }
        let rc = address.withSockaddr { connect(s, $0, $1) }
        guard rc == 0 else {
            let e = errno
            Glibc.close(s)
            throw TestSupportError("connect \(path): \(TestFiles.errorText(e))")
        }
        fd = s
        self.path = path
        reader = LineReader(fd: s)
    }

    deinit { close() }

    /// Closes the connection (once; a second close could hit a reused descriptor number).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// True once the daemon closed the connection (end of file seen) or it was closed here.
    public var isAtEnd: Bool { isClosed || reader.isAtEnd }

    // MARK: Sending

    /// Sends `line` plus a newline, waiting up to `timeout` seconds for room; false when the
    /// connection failed or stayed full.
    @discardableResult
    public func send(_ line: String, timeout: Double = 15) -> Bool {
        sendRaw(Array(line.utf8) + [0x0A], timeout: timeout)
    }

    /// Sends `text` exactly as given (no newline added).
    @discardableResult
    public func sendRaw(_ text: String, timeout: Double = 15) -> Bool { sendRaw(Array(text.utf8), timeout: timeout) }

    /// Sends `bytes` exactly as given, waiting up to `timeout` seconds for room; false when the
    /// connection failed or stayed full.
    @discardableResult
    public func sendRaw(_ bytes: [UInt8], timeout: Double = 15) -> Bool {
        outbox += bytes
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            guard flush() else { return false }
            if outbox.isEmpty { return true }
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&pfd, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }

    /// Queues `line` plus a newline and writes as much as the socket takes now (never waits).
    public func enqueue(_ line: String) {
        outbox += Array(line.utf8)
        outbox.append(0x0A)
        flush()
    }

    /// Whether queued bytes are waiting for room in the socket.
    public var wantsWrite: Bool { !outbox.isEmpty }

    /// Writes queued bytes until the socket is full; false when the connection failed.
    @discardableResult
    public func flush() -> Bool {
        while !outbox.isEmpty {
            guard !isClosed else { return false }
            let n = outbox.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return true }
                outbox.removeAll()  // the connection failed: nothing queued can be sent any more
                return false
            }
            outbox.removeFirst(n)
        }
        return true
    }

    // MARK: Reading

    /// The next line (without its newline), waiting up to `timeout` seconds; nil on timeout or
    /// when the connection ended.
    public func readLine(timeout: Double = 5) -> String? {
        isClosed ? nil : reader.nextLine(timeout: timeout)
    }

    /// The next line's bytes, waiting up to `timeout` seconds; nil on timeout or end of stream.
    public func readLineBytes(timeout: Double = 5) -> [UInt8]? {
        isClosed ? nil : reader.nextLineBytes(timeout: timeout)
    }

    /// Reads lines until one contains `fragment` (the others are dropped); nil on timeout.
    public func readLine(timeout: Double, containing fragment: String) -> String? {
        let deadline = MonotonicClock.seconds() + timeout
        while MonotonicClock.seconds() < deadline {
            guard let line = readLine(timeout: deadline - MonotonicClock.seconds()) else { return nil }
            if line.contains(fragment) { return line }
        }
        return nil
    }

    /// The complete lines that have arrived, without waiting.
    public func readAvailableLines() -> [String] { isClosed ? [] : reader.availableLines() }

    /// True when the daemon closes the connection within `timeout` seconds (lines arriving
    /// meanwhile are dropped).
    public func isClosedByPeer(timeout: Double = 5) -> Bool {
        let deadline = MonotonicClock.seconds() + timeout
        while !reader.isAtEnd {
            if isClosed { return false }
            _ = reader.availableLines()
            if reader.isAtEnd { break }
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(min(left, 0.05) * 1000) + 1)
        }
        return true
    }

    /// Sends `hello` (id `h`, the current protocol version) and returns the reply line (the
    /// first line mentioning `"id":"h"`), or nil when none came within `timeout` seconds. The
    /// caller judges `"ok":true`.
    public func hello(client: String = "booksync-tests", timeout: Double = 5) -> String? {
        send("{\"id\":\"h\",\"op\":\"hello\",\"version\":\(ProtocolVersion.current),\"client\":\(Self.quoted(client))}")
        return readLine(timeout: timeout, containing: #""id":"h""#)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String { JSONText.string(text) }

    // MARK: Fast scanning

    /// Reads what is available through `scratch` and tells whether a line completed by it
    /// contains `marker`, without making a `String` per line (for readers that must not be
    /// slower than the daemon they measure). Lines scanned here are consumed.
    public func scan(for marker: [UInt8], scratch: UnsafeMutableRawBufferPointer) -> Bool {
        var found = false
        while !isAtEnd {
            let n = read(fd, scratch.baseAddress, scratch.count)
            if n < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { reader.markAtEnd() }
                break
            }
            if n == 0 {
                reader.markAtEnd()
                break
            }
            let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<n])
            if !reader.hasPendingLines && reader.bufferedByteCount == 0 && bytes[n - 1] == 0x0A && n < scratch.count {
                // The usual case: whole lines in one read; search them where they are.
                return found || Self.contains(bytes.bindMemory(to: UInt8.self), marker)
            }
            reader.feed(bytes)
            if n < scratch.count { break }
        }
        for line in readAvailableLinesBytes() where Self.contains(line, marker) { found = true }
        return found
    }

    private func readAvailableLinesBytes() -> [[UInt8]] {
        var lines: [[UInt8]] = []
        while reader.hasPendingLines, let line = reader.nextLineBytes(timeout: 0) { lines.append(line) }
        return lines
    }

    /// Whether `haystack` contains `needle`.
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { contains($0, needle) }
    }

    /// Whether `h` contains `needle` (`memchr` for the first byte, then `memcmp`).
    public static func contains(_ h: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, h.count >= needle.count else { return needle.isEmpty }
        return needle.withUnsafeBufferPointer { n in
            let base = h.baseAddress!
            var at = 0
            let last = h.count - n.count
            while at <= last, let hit = memchr(base + at, Int32(first), last - at + 1) {
                at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                if memcmp(base + at, n.baseAddress!, n.count) == 0 { return true }
                at += 1
            }
            return false
        }
    }
}

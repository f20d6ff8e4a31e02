import Glibc

/// A raw HTTP/1.1 client over TCP for tests: sends exactly the bytes given (so malformed requests
/// can be sent too) and parses responses (`Content-Length`, chunked, or until close) and
/// server-sent events incrementally. Reads never block longer than the timeout given.
public final class HTTPTestClient: @unchecked Sendable {
    // `@unchecked Sendable`: one test uses a client from one task at a time.
    /// The socket.
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// True once the server closed the connection.
    public private(set) var closed = false

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` sets `SO_RCVBUF` before the connection
    /// (a small one makes a client that does not read stall the server's writes quickly).
    public init(port: Int32, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw TestSupportError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Sends `bytes` (all of them).
    public func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Sends `text`.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends a request with `Host: 127.0.0.1:PORT` unless `headers` names one, and a
    /// `Content-Length` for a body.
    public func send(
        _ method: String, _ path: String, port: Int32, headers: [String: String] = [:], body: [UInt8]? = nil
    ) {
        var text = "\(method) \(path) HTTP/1.1\r\n"
        if !headers.keys.contains(where: { $0.lowercased() == "host" }) { text += "Host: 127.0.0.1:\(port)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        send(Array((text + "\r\n").utf8) + (body ?? []))
    }

    /// Reads what arrives within `timeout` seconds (returns at the first bytes, or on close).
    @discardableResult
    public func pump(timeout: Double) -> Int {
        var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollFD, 1, Int32(timeout * 1000)) > 0 else { return 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            closed = true
            return 0
        }
        buffer += chunk[0..<n]
        return n
    }

    /// The next complete response, or nil when none came within `timeout` seconds.
    public func response(timeout: Double = 10) -> HTTPTestResponse? {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            if let (response, used) = HTTPTestResponse.parse(buffer, complete: closed) {
                buffer.removeFirst(used)
                return response
            }
            if closed || MonotonicClock.seconds() > deadline { return nil }
            pump(timeout: 0.05)
        }
    }

    /// The head of a streamed response (status and headers) once it came, leaving its body to `events`.
    public func streamHead(timeout: Double = 10) -> HTTPTestResponse? {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            if let end = HTTPTestResponse.headEnd(buffer) {
                let head = HTTPTestResponse.parseHead(Array(buffer[0..<end]))
                buffer.removeFirst(end + 4)
                return head
            }
            if closed || MonotonicClock.seconds() > deadline { return nil }
            pump(timeout: 0.05)
        }
    }

    /// The decoded (de-chunked) body text of a streamed response received so far.
    private var streamText = ""
    /// The part of it after the last complete event frame.
    private var unparsed: [UInt8] = []
    private var parsed: [ServerSentEvent] = []

    /// Every server-sent event received so far (complete frames; comments dropped), reading
    /// whatever arrived meanwhile. Parses only what is new.
    public func events() -> [ServerSentEvent] {
        while pump(timeout: 0) > 0 {}
        var offset = 0
        while let (data, used) = HTTPTestResponse.chunk(buffer[offset...]) {
            offset += used
            streamText += String(decoding: data, as: UTF8.self)
            unparsed += data
            if data.isEmpty { closed = true }
        }
        buffer.removeFirst(offset)
        if let end = unparsed.indices.dropLast().last(where: { unparsed[$0] == 10 && unparsed[$0 + 1] == 10 }) {
            parsed += ServerSentEvent.parse(String(decoding: unparsed[..<(end + 2)], as: UTF8.self))
            unparsed.removeFirst(end + 2)
        }
        return parsed
    }

    /// The raw stream text so far (comments included).
    public var receivedText: String {
        _ = events()
        return streamText
    }

    /// One request on a fresh connection (`Connection: close`).
    public static func request(
        _ method: String, _ path: String, port: Int32, headers: [String: String] = [:], body: String? = nil,
        timeout: Double = 10
    ) throws -> HTTPTestResponse {
        let client = try HTTPTestClient(port: port)
        var all = headers
        all["Connection"] = "close"
        client.send(method, path, port: port, headers: all, body: body.map { Array($0.utf8) })
        guard let response = client.response(timeout: timeout) else {
            throw TestSupportError("no response to \(method) \(path)")
        }
        return response
    }
}

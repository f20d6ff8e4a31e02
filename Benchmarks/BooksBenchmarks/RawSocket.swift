import Glibc

/// A non-blocking Unix-socket connection speaking the daemon's line protocol directly (no
/// BooksClient, no threads): many of them are driven by one event loop in one thread.
final class RawSocket {
    let fd: Int32
    private var inbox: [UInt8] = []
    private var outbox: [UInt8] = []
    private(set) var closed = false

    /// Connects (blocking connect, then non-blocking I/O); nil when nothing listens.
    init?(path: String) {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < 108 else { Glibc.close(s); return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (k, b) in bytes.enumerated() { raw[k] = b }
            raw[bytes.count] = 0
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard ok else { Glibc.close(s); return nil }
        fd = s
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    func close() {
        if !closed { closed = true; Glibc.close(fd) }
    }

    /// Queues `line` (a newline is added) and writes as much as the socket takes.
    func send(_ line: String) {
        outbox.append(contentsOf: line.utf8)
        outbox.append(0x0A)
        flush()
    }

    var wantsWrite: Bool { !outbox.isEmpty }

    func flush() {
        while !outbox.isEmpty && !closed {
            let n = outbox.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; if errno == EAGAIN { return }; closed = true; return }
            outbox.removeFirst(n)
        }
    }

    /// Reads what is available through `scratch` and tells whether the bytes received (since the
    /// last complete line before this call) contain `marker`; keeps only the incomplete last line
    /// (no `String` per line: the fan-out reader must not be slower than the daemon it measures).
    func scan(for marker: [UInt8], scratch: UnsafeMutableRawBufferPointer) -> Bool {
        // Level-triggered readiness: a read that does not fill the buffer ends the turn (another
        // read would only return EAGAIN; anything left is reported readable again).
        var found = false
        while !closed {
            let n = read(fd, scratch.baseAddress, scratch.count)
            if n < 0 { if errno == EINTR { continue }; if errno != EAGAIN { closed = true }; break }
            if n == 0 { closed = true; break }
            let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<n])
            if inbox.isEmpty && bytes[n - 1] == 0x0A && n < scratch.count {
                // The usual case: whole lines in one read; search them where they are.
                return Self.contains(bytes.bindMemory(to: UInt8.self), marker)
            }
            inbox.append(contentsOf: bytes)
            if n < scratch.count { break }
        }
        found = Self.contains(inbox, marker)
        if let lastNewline = inbox.lastIndex(of: 0x0A) { inbox.removeFirst(lastNewline + 1) }
        return found
    }

    /// Whether `haystack` contains `needle` (memchr for the first byte, then memcmp).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { contains($0, needle) }
    }

    /// Whether `h` contains `needle`.
    static func contains(_ h: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
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

    /// Reads what is available; returns the complete lines (empty when none). Marks `closed` at EOF.
    func readLines() -> [String] {
        var lines: [String] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !closed {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; if errno != EAGAIN { closed = true }; break }
            if n == 0 { closed = true; break }
            inbox.append(contentsOf: chunk[0..<n])
        }
        var start = 0
        while let newline = inbox[start...].firstIndex(of: 0x0A) {
            lines.append(String(decoding: inbox[start..<newline], as: UTF8.self))
            start = newline + 1
        }
        if start > 0 { inbox.removeFirst(start) }
        return lines
    }

    /// Waits for the next line (blocking up to `timeoutMS`).
    func awaitLine(timeoutMS: Int32 = 10_000) -> String? {
        let end = Stopwatch.now() + UInt64(timeoutMS) * 1_000_000
        var queued: [String] = []
        while queued.isEmpty {
            queued = readLines()
            if !queued.isEmpty { break }
            if closed || Stopwatch.now() > end { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 100)
        }
        // Callers of awaitLine use request/reply in lockstep: extra lines are put back.
        if queued.count > 1 { inbox = Array((queued.dropFirst().joined(separator: "\n") + "\n").utf8) + inbox }
        return queued[0]
    }

    /// `hello`; returns (epoch, seq) from the reply, nil on failure.
    func hello(client: String = "BooksBenchmarks") -> (epoch: String, seq: UInt64)? {
        send("{\"id\":\"h\",\"op\":\"hello\",\"version\":1,\"client\":\(JSONLine.quoted(client))}")
        guard let reply = awaitLine(), reply.contains("\"ok\":true"),
              let epoch = JSONLine.string("epoch", in: reply), let seq = JSONLine.integer("seq", in: reply) else { return nil }
        return (epoch, seq)
    }

    /// The `subscribe` request line resuming at (epoch, seq): no snapshot, changes only.
    static func subscribeLine(id: String, epoch: String, seq: UInt64) -> String {
        "{\"id\":\(JSONLine.quoted(id)),\"op\":\"subscribe\",\"resume\":{\"epoch\":\(JSONLine.quoted(epoch)),\"seq\":\(seq)}}"
    }
}

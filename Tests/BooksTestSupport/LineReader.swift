import BooksProtocol
import Glibc

/// Reads newline-terminated lines from a descriptor (a socket or a child's pipe) through
/// `BooksProtocol.LineFramer`, with timeouts; each line is stamped with the `CLOCK_MONOTONIC`
/// time of the `read` that completed it. The descriptor is switched to non-blocking mode and is
/// not closed by the reader. One owner; not thread-safe.
public final class LineReader: @unchecked Sendable {
    /// The descriptor read from.
    public let fd: Int32
    private var framer: LineFramer
    private var pending: [(line: [UInt8], at: UInt64)] = []
    /// True once the descriptor reported end of file or an error.
    public private(set) var isAtEnd = false

    /// Reads from `fd`; lines longer than `maxLineLength` bytes are dropped.
    public init(fd: Int32, maxLineLength: Int = 256 << 20) {
        self.fd = fd
        framer = LineFramer(maxLineLength: maxLineLength)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Whether complete lines are waiting to be taken.
    public var hasPendingLines: Bool { !pending.isEmpty }

    /// Bytes of an incomplete last line held back.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Reads everything available now, without waiting; returns how many bytes came.
    @discardableResult
    public func fill() -> Int {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isAtEnd {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { break }
            if n <= 0 {
                isAtEnd = true
                break
            }
            total += n
            let at = MonotonicClock.nanoseconds()
            chunk.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0[0..<n]), at: at) }
            if n < chunk.count { break }
        }
        return total
    }

    /// Feeds bytes the owner read itself (e.g. `LineClient.scan`) into the framer.
    public func feed(_ bytes: UnsafeRawBufferPointer, at: UInt64 = MonotonicClock.nanoseconds()) {
        framer.feed(bytes) { frame in
            if case .line(let line) = frame { pending.append((line, at)) }
        }
    }

    /// Marks the descriptor as finished (the owner saw end of file itself).
    public func markAtEnd() { isAtEnd = true }

    /// The complete lines available now (reads without waiting), oldest first.
    public func availableLines() -> [String] {
        fill()
        defer { pending.removeAll() }
        return pending.map { String(decoding: $0.line, as: UTF8.self) }
    }

    /// The next line with the time it was read, waiting (blocking) until `deadline`
    /// (`MonotonicClock.nanoseconds()`); nil on timeout or at end of file.
    public func nextStampedLine(until deadline: UInt64) -> (line: String, at: UInt64)? {
        nextBytes(until: deadline).map { (String(decoding: $0.line, as: UTF8.self), $0.at) }
    }

    /// The next line's bytes, waiting (blocking) up to `timeout` seconds; nil on timeout or at end of file.
    public func nextLineBytes(timeout: Double) -> [UInt8]? {
        nextBytes(until: MonotonicClock.nanoseconds() + UInt64(max(0, timeout) * 1e9))?.line
    }

    /// The next line, waiting (blocking) up to `timeout` seconds; nil on timeout or at end of file.
    public func nextLine(timeout: Double) -> String? {
        nextLineBytes(timeout: timeout).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next line, suspending (not blocking a thread) up to `timeout` seconds; nil on timeout
    /// or at end of file.
    public func nextLineAsync(timeout: Double) async -> String? {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            if pending.isEmpty { fill() }
            if !pending.isEmpty { return String(decoding: pending.removeFirst().line, as: UTF8.self) }
            if isAtEnd || MonotonicClock.seconds() >= deadline { return nil }
            await MonotonicClock.pause(seconds: 0.01)
        }
    }

    private func nextBytes(until deadline: UInt64) -> (line: [UInt8], at: UInt64)? {
        while pending.isEmpty {
            let now = MonotonicClock.nanoseconds()
            if isAtEnd || now >= deadline { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min((deadline - now) / 1_000_000 + 1, 1000)))
            if ready < 0 && errno != EINTR {
                isAtEnd = true
                return nil
            }
            if ready > 0 { fill() }
        }
        return pending.removeFirst()
    }
}

import BooksTestSupport
import Glibc

/// A datagram socket standing in for systemd's notification socket.
final class NotifySocket {
    let path: String
    let fd: Int32
    /// Every datagram received so far, with its arrival time (`MonotonicClock.seconds()`).
    private(set) var received: [(time: Double, text: String)] = []
    private var consumed = 0

    init(path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        let rc = (try? UnixSocketAddress(path: path))?.withSockaddr { bind(fd, $0, $1) } ?? -1
        precondition(rc == 0, "bind \(path): \(errno)")
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Reads every datagram available within `milliseconds`.
    func pump(milliseconds: Int32) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var wait = milliseconds
        var buffer = [UInt8](repeating: 0, count: 65536)
        while poll(&pfd, 1, wait) > 0 {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { break }
            received.append((MonotonicClock.seconds(), String(decoding: buffer[0..<n], as: UTF8.self)))
            wait = 0
        }
    }

    /// Waits for the next (not yet consumed) datagram matching `predicate`; nil on timeout.
    /// Datagrams before it are consumed as well.
    func next(within seconds: Double, where predicate: (String) -> Bool) -> (time: Double, text: String)? {
        let end = MonotonicClock.seconds() + seconds
        while true {
            while consumed < received.count {
                let item = received[consumed]
                consumed += 1
                if predicate(item.text) { return item }
            }
            let left = end - MonotonicClock.seconds()
            if left <= 0 { return nil }
            pump(milliseconds: Int32(max(1, min(left, 0.05) * 1000)))
        }
    }

    func next(within seconds: Double, containing line: String) -> (time: Double, text: String)? {
        next(within: seconds) { $0.split(separator: "\n").contains { $0 == line || $0.hasPrefix(line) } }
    }

    /// Every datagram text so far (after reading what is pending).
    var texts: [String] {
        pump(milliseconds: 0)
        return received.map(\.text)
    }

    /// The latest `STATUS=` value received so far.
    var lastStatus: String? {
        pump(milliseconds: 0)
        for item in received.reversed() {
            for line in item.text.split(separator: "\n") where line.hasPrefix("STATUS=") {
                return String(line.dropFirst(7))
            }
        }
        return nil
    }
}

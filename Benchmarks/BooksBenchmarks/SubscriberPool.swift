import Glibc

/// Many subscribed connections driven by one `poll` loop in this one thread.
final class SubscriberPool {
    private(set) var sockets: [RawSocket] = []

    /// Connects `count` subscribers (hello, then subscribe resuming at the hello point: no snapshot)
    /// and waits for every subscribe reply. Nil when a connection fails.
    init?(socketPath: String, count: Int) {
        for k in 0..<count {
            guard let socket = RawSocket(path: socketPath), let point = socket.hello(client: "bench-sub-\(k)") else {
                Console.error("subscriber \(k) could not connect")
                return nil
            }
            socket.send(RawSocket.subscribeLine(id: "s", epoch: point.epoch, seq: point.seq))
            sockets.append(socket)
        }
        var subscribed = Array(repeating: false, count: count)
        var remaining = count
        let deadline = Stopwatch.now() + 60_000_000_000
        while remaining > 0 && Stopwatch.now() < deadline {
            waitReadable(timeoutMS: 100)
            for (k, socket) in sockets.enumerated() where !subscribed[k] {
                for line in socket.readLines() where line.contains("\"id\":\"s\"") {
                    guard line.contains("\"ok\":true") else { Console.error("subscribe refused: \(line)"); return nil }
                    subscribed[k] = true
                    remaining -= 1
                }
            }
        }
        guard remaining == 0 else { Console.error("\(remaining) subscribe replies missing"); return nil }
    }

    /// Nanoseconds from `since` until each subscriber read a line containing `marker`, or nil
    /// for subscribers that had not by `since + timeoutNS`.
    func arrival(of marker: String, since: UInt64, timeoutNS: UInt64) -> [UInt64?] {
        var arrived: [UInt64?] = Array(repeating: nil, count: sockets.count)
        var remaining = sockets.count
        let deadline = since + timeoutNS
        while remaining > 0 && Stopwatch.now() < deadline {
            // Only the sockets poll reports readable are read (no EAGAIN reads of idle ones).
            for k in readable(timeoutMS: 50) {
                let socket = sockets[k]
                let lines = socket.readLines()
                let now = Stopwatch.now()
                if arrived[k] == nil, lines.contains(where: { $0.contains(marker) }) {
                    arrived[k] = now - since
                    remaining -= 1
                }
            }
        }
        return arrived
    }

    /// Indices of the sockets with input (or hang-up) after waiting up to `timeoutMS`.
    private func readable(timeoutMS: Int32) -> [Int] {
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), timeoutMS) > 0 else { return [] }
        return fds.indices.filter { fds[$0].revents != 0 }
    }

    private func waitReadable(timeoutMS: Int32) {
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), timeoutMS)
    }

    func close() { for socket in sockets { socket.close() }; sockets = [] }
}

import BooksTestSupport
import CLinux
import Glibc

/// Many subscribed connections driven by one event loop (`poll` to subscribe, epoll to measure) in
/// this one thread.
final class SubscriberPool {
    private(set) var sockets: [LineClient] = []
    /// Every socket, registered for input (data: the socket's index).
    private var epollFD: Int32 = -1

    /// Connects `count` subscribers (hello, then subscribe resuming at the hello point: no snapshot)
    /// and waits for every subscribe reply. Nil when a connection fails.
    init?(socketPath: String, count: Int) {
        for k in 0..<count {
            guard let socket = LineClient.connectIfListening(socketPath),
                let point = socket.helloPoint(client: "bench-sub-\(k)")
            else {
                Console.error("subscriber \(k) could not connect")
                return nil
            }
            socket.enqueue(LineClient.subscribeLine(id: "s", epoch: point.epoch, seq: point.seq))
            sockets.append(socket)
        }
        var subscribed = Array(repeating: false, count: count)
        var remaining = count
        let deadline = Stopwatch.now() + 60_000_000_000
        while remaining > 0 && Stopwatch.now() < deadline {
            waitReadable(timeoutMS: 100)
            for (k, socket) in sockets.enumerated() where !subscribed[k] {
                for line in socket.readAvailableLines() where line.contains("\"id\":\"s\"") {
                    guard line.contains("\"ok\":true") else {
                        Console.error("subscribe refused: \(line)")
                        return nil
                    }
                    subscribed[k] = true
                    remaining -= 1
                }
            }
        }
        guard remaining == 0 else {
            Console.error("\(remaining) subscribe replies missing")
            return nil
        }
        // The epoll set is built once, before any measurement (registering a thousand
        // descriptors takes milliseconds).
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else {
            Console.error("epoll_create1 failed")
            return nil
        }
        for (k, socket) in sockets.enumerated() {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(k)
            _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, socket.fd, &event)
        }
    }

    /// Nanoseconds from `since` until each subscriber read a line containing `marker`, or nil
    /// for subscribers that had not by `since + timeoutNS`. The sockets are watched with one
    /// epoll set (a `poll` over a thousand descriptors per wake-up would make this reader, not
    /// the daemon, the bottleneck) and the bytes are searched without decoding them.
    func arrival(of marker: String, since: UInt64, timeoutNS: UInt64) -> [UInt64?] {
        var arrived: [UInt64?] = Array(repeating: nil, count: sockets.count)
        var remaining = sockets.count
        let deadline = since + timeoutNS
        let needle = Array(marker.utf8)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { scratch.deallocate() }
        var events = [epoll_event](repeating: epoll_event(), count: 1024)
        while remaining > 0 && Stopwatch.now() < deadline {
            let ready = Int(epoll_wait(epollFD, &events, Int32(events.count), 50))
            guard ready > 0 else { continue }
            for e in 0..<ready {
                let k = Int(events[e].data.u64)
                let found = sockets[k].scan(for: needle, scratch: scratch)
                if arrived[k] == nil, found {
                    arrived[k] = Stopwatch.now() - since
                    remaining -= 1
                }
                if sockets[k].isAtEnd { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, sockets[k].fd, nil) }
            }
        }
        return arrived
    }

    private func waitReadable(timeoutMS: Int32) {
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), timeoutMS)
    }

    func close() {
        for socket in sockets { socket.close() }
        sockets = []
        if epollFD >= 0 {
            Glibc.close(epollFD)
            epollFD = -1
        }
    }
}

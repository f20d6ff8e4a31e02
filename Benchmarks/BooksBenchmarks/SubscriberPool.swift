import BooksTestSupport
import CLinux
import Glibc

/// Many subscribed connections driven by one event loop (epoll) in this one thread.
///
/// Joining is pipelined, as a fleet restarting together would do it: every connection sends
/// `hello` and `subscribe` (resuming at one hello point: no snapshot; or, with `snapshot`, a
/// subscription that starts with the whole file) at once, then the replies (and snapshots,
/// read to their end) are read. Everything a measurement touches per subscriber (the epoll set, the line buffers)
/// is set up before the first edit.
final class SubscriberPool {
    private(set) var sockets: [LineClient] = []
    /// The sockets' descriptors (read directly while measuring).
    private var fds: [Int32] = []
    /// Every socket, registered for input (data: the socket's index).
    private var epollFD: Int32 = -1
    /// Per subscriber: bytes of an unfinished line (`lines(timeoutMS:_:)`).
    private var partial: [[UInt8]] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private var events = [epoll_event](repeating: epoll_event(), count: 1024)
    /// The hello point every subscription resumes at.
    let point: (epoch: String, seq: UInt64)

    /// Connects `count` subscribers; subscriber `k` filters on `filters[k % filters.count]`
    /// (`author contains` that text; nil: everything). With `snapshot`, each subscribes without
    /// `resume` and its snapshot is read to the end before the pool is ready. Nil when a
    /// connection fails.
    init?(socketPath: String, count: Int, filters: [String?] = [nil], snapshot: Bool = false) {
        guard let probe = LineClient.connectIfListening(socketPath), let point = probe.helloPoint() else {
            Console.error("no hello from \(socketPath)")
            return nil
        }
        probe.close()
        self.point = point
        for k in 0..<count {
            guard let socket = LineClient.connectIfListening(socketPath) else {
                Console.error("subscriber \(k) could not connect")
                return nil
            }
            socket.enqueue(#"{"id":"h","op":"hello","version":1,"client":"bench-sub"}"#)
            socket.enqueue(
                snapshot
                    ? #"{"id":"s","op":"subscribe"}"#
                    : Self.subscribeLine(point: point, authorContains: filters[k % filters.count]))
            _ = socket.flush()
            sockets.append(socket)
        }
        for (k, socket) in sockets.enumerated() {
            while socket.wantsWrite && socket.flush() { usleep(100) }
            guard let reply = socket.readLine(timeout: 60, containing: "\"id\":\"s\""), reply.contains("\"ok\":true")
            else {
                Console.error("subscriber \(k): subscribe not answered ok")
                return nil
            }
            if snapshot, !Self.readSnapshot(socket) {
                Console.error("subscriber \(k): no complete snapshot")
                return nil
            }
        }
        partial = Array(repeating: [], count: count)
        fds = sockets.map(\.fd)
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

    deinit {
        close()
        scratch.deallocate()
    }

    /// Reads the snapshot lines that follow a `subscribe` reply, up to the last one (no
    /// `"more":true`); false on timeout.
    private static func readSnapshot(_ socket: LineClient) -> Bool {
        while let line = socket.readLine(timeout: 60, containing: #""event":"snapshot""#) {
            if !line.contains(#""more":true"#) { return true }
        }
        return false
    }

    /// The `subscribe` line resuming at `point`, optionally with an `author contains` filter.
    static func subscribeLine(point: (epoch: String, seq: UInt64), authorContains: String?) -> String {
        let resume = #""resume":{"epoch":\#(JSONLine.quoted(point.epoch)),"seq":\#(point.seq)}"#
        guard let authorContains else { return #"{"id":"s","op":"subscribe",\#(resume)}"# }
        return #"{"id":"s","op":"subscribe",\#(resume),"filter":{"conditions":[{"field":"author","op":"contains","#
            + #""value":\#(JSONLine.quoted(authorContains))}]}}"#
    }

    /// Nanoseconds from `since` until each subscriber read a line containing `marker`, or nil
    /// for subscribers that had not by `since + timeoutNS`; `only` limits the wait to the
    /// subscribers it marks. One `read` per ready socket, straight into one buffer; the bytes are
    /// searched where they are (a line split across reads is searched once complete).
    func arrival(of marker: String, since: UInt64, timeoutNS: UInt64, only: [Bool]? = nil) -> [UInt64?] {
        var arrived: [UInt64?] = Array(repeating: nil, count: sockets.count)
        var remaining = only.map { $0.filter { $0 }.count } ?? sockets.count
        let deadline = since + timeoutNS
        let needle = Array(marker.utf8)
        let base = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        while remaining > 0 && Stopwatch.now() < deadline {
            let ready = Int(epoll_wait(epollFD, &events, Int32(events.count), 50))
            guard ready > 0 else { continue }
            for e in 0..<ready {
                let k = Int(events[e].data.u64)
                let n = read(fds[k], scratch.baseAddress, scratch.count)
                guard n > 0 else {
                    if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fds[k], nil)
                    }
                    continue
                }
                let bytes = UnsafeBufferPointer(start: base, count: n)
                let found: Bool
                if partial[k].isEmpty && bytes[n - 1] == 0x0A {
                    found = LineClient.contains(bytes, needle)
                } else {
                    partial[k].append(contentsOf: bytes)
                    found = LineClient.contains(partial[k], needle)
                    if let end = partial[k].lastIndex(of: 0x0A) { partial[k].removeFirst(end + 1) }
                }
                if found, arrived[k] == nil, only?[k] ?? true {
                    arrived[k] = Stopwatch.now() - since
                    remaining -= 1
                }
            }
        }
        return arrived
    }

    /// Waits up to `timeoutMS` for input, reads every ready subscriber and hands each complete
    /// line to `body` (subscriber index, line bytes without the newline).
    func lines(timeoutMS: Int32, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        let ready = Int(epoll_wait(epollFD, &events, Int32(events.count), timeoutMS))
        guard ready > 0 else { return }
        for e in 0..<ready {
            let k = Int(events[e].data.u64)
            while true {
                let n = read(fds[k], scratch.baseAddress, scratch.count)
                if n <= 0 {
                    if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fds[k], nil)
                    }
                    break
                }
                split(
                    UnsafeBufferPointer(start: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n), k,
                    body)
                if n < scratch.count { break }
            }
        }
    }

    private func split(_ bytes: UnsafeBufferPointer<UInt8>, _ k: Int, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void)
    {
        var start = 0
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            if partial[k].isEmpty {
                body(k, UnsafeBufferPointer(rebasing: bytes[start..<end]))
            } else {
                partial[k].append(contentsOf: bytes[start..<end])
                partial[k].withUnsafeBufferPointer { body(k, $0) }
                partial[k].removeAll(keepingCapacity: true)
            }
            start = end + 1
        }
        if start < bytes.count { partial[k].append(contentsOf: bytes[start...]) }
    }

    /// The `seq` of a `change` event line, nil for any other line.
    static func changeSeq(_ line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard LineClient.contains(line, Array(#""event":"change""#.utf8)) else { return nil }
        let key = Array(#""seq":"#.utf8)
        guard line.count > key.count else { return nil }
        for at in 0...(line.count - key.count) where line[at] == key[0] {
            guard (0..<key.count).allSatisfy({ line[at + $0] == key[$0] }) else { continue }
            var value: UInt64 = 0
            var i = at + key.count
            while i < line.count, line[i] >= 0x30, line[i] <= 0x39 {
                value = value * 10 + UInt64(line[i] - 0x30)
                i += 1
            }
            return value
        }
        return nil
    }

    func close() {
        for socket in sockets { socket.close() }
        sockets = []
        fds = []
        if epollFD >= 0 {
            Glibc.close(epollFD)
            epollFD = -1
        }
    }
}

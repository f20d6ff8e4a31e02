import Glibc

/// Broadcast events admitted for a direct `send` (`ConnectionStateMachine.admitEvent`), collected
/// so that their system calls run back to back, without any connection's bookkeeping between
/// them. On this machine that is what keeps local readers busy instead of asleep: a reader that
/// finds nothing ready goes back to `epoll_wait`, and every `send` that then makes a socket
/// readable pays for waking it (measured: 10,000 sends with 0.8 µs of other work between any
/// two took 33 ms; the same sends and work in bursts of 256 took 25 ms; docs/BENCHMARKS.md).
/// Touched only by the server thread; its storage is kept between broadcasts.
struct DirectSendBatch {
    /// Sends per burst: small enough that the first subscribers have a change at once, large
    /// enough that the bookkeeping between bursts wakes a reader a few times, not per send.
    static let burst = 256

    private(set) var connections: [Connection] = []
    private(set) var payloads: [[UInt8]] = []
    private var fds: [Int32] = []
    /// Per item after `sendAll()`: the bytes sent, or `-errno`.
    private(set) var results: [Int] = []

    var count: Int { connections.count }
    var isFull: Bool { connections.count >= Self.burst }

    mutating func append(_ connection: Connection, _ bytes: [UInt8]) {
        connections.append(connection)
        payloads.append(bytes)
        fds.append(connection.fd)
    }

    /// One non-blocking `send` per item, in order, and nothing else in between.
    mutating func sendAll() {
        results.removeAll(keepingCapacity: true)
        for k in fds.indices {
            let n = payloads[k].withUnsafeBytes { buffer in
                Glibc.send(fds[k], buffer.baseAddress!, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            results.append(n < 0 ? -Int(errno) : n)
        }
    }

    /// Empties the batch, keeping its storage.
    mutating func removeAll() {
        connections.removeAll(keepingCapacity: true)
        payloads.removeAll(keepingCapacity: true)
        fds.removeAll(keepingCapacity: true)
        results.removeAll(keepingCapacity: true)
    }
}

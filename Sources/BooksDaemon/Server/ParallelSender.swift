import BooksPlatform
import Dispatch
import Glibc
import Synchronization

/// A second thread that shares the `send` calls of a large broadcast, so that a change reaches a
/// thousand idle subscribers on two cores instead of one (the kernel's work per `send`, a few
/// microseconds, dominates a broadcast). It only performs the system calls: every connection's
/// state stays with the server thread, which hands a batch over, sends too, waits, then does the
/// bookkeeping for all. Both threads take the next unsent item from a shared counter, so the
/// helper's wake-up delay or a preemption of either thread only shifts work to the other.
final class ParallelSender: @unchecked Sendable {
    // `@unchecked Sendable` is safe: `batch`, `results` and `stopping` are written by the server
    // thread only before `start.signal()` and read by it only after `done.wait()`; the helper
    // thread reads `batch` and `stopping` only between its `start.wait()` and its `done.signal()`.
    // During a batch both threads write `results`, but each index is claimed by exactly one of
    // them through the atomic `next`, so no element is written twice or read meanwhile.
    private var batch: [(fd: Int32, bytes: [UInt8])] = []
    private var results = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var stopping = false
    private let next = Atomic<Int>(0)
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var thread: DedicatedThread?

    /// Starts the helper thread `booksd-sender`; throws when it cannot be created (the caller
    /// then sends alone).
    init() throws(SocketServerError) {
        do throws(DedicatedThreadError) {
            // The thread holds the sender until `stop()` ends it.
            thread = try DedicatedThread.start(name: "booksd-sender") { self.run() }
        } catch {
            throw .threadStartFailed(error)
        }
    }

    /// Sends every `(fd, bytes)` of `items` from this thread and the helper thread together;
    /// returns the results in order (bytes sent, or `-errno`).
    func send(_ items: [(fd: Int32, bytes: [UInt8])]) -> [Int] {
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: items.count)
        defer { buffer.deallocate() }
        batch = items
        results = buffer
        next.store(0, ordering: .relaxed)
        start.signal()
        work()
        done.wait()
        batch = []
        results = UnsafeMutableBufferPointer(start: nil, count: 0)
        return Array(buffer)
    }

    /// Ends the helper thread (waits for it).
    func stop() {
        stopping = true
        start.signal()
        thread?.join()
        thread = nil
    }

    /// Sends items until none is left (both threads run this on the same batch).
    private func work() {
        while true {
            let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard k < batch.count else { return }
            results[k] = Self.sendOnce(batch[k].fd, batch[k].bytes)
        }
    }

    private func run() {
        while true {
            start.wait()
            if stopping { return }
            work()
            done.signal()
        }
    }

    /// One non-blocking `send`: the bytes taken, or `-errno`.
    static func sendOnce(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        let n = bytes.withUnsafeBytes { buffer in
            Glibc.send(fd, buffer.baseAddress!, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        return n < 0 ? -Int(errno) : n
    }
}

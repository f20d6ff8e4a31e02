import Dispatch
import Glibc

/// A second thread that makes half of a large broadcast's `send` calls, so that a change reaches
/// a thousand idle subscribers on two cores instead of one (the kernel's work per `send`, a few
/// microseconds, dominates a broadcast). It only performs the system calls: every connection's
/// state stays with the server thread, which hands a batch over, sends the other half itself,
/// waits, then does the bookkeeping for all.
final class ParallelSender: @unchecked Sendable {
    // `@unchecked Sendable` is safe: `batch`, `results` and `stopping` are written by the server
    // thread only before `start.signal()` and read by it only after `done.wait()`; the helper
    // thread touches them only between its `start.wait()` and its `done.signal()`. The semaphores
    // order every access, so the two threads never use them at the same time.
    private var batch: [(fd: Int32, bytes: [UInt8])] = []
    private var results: [Int] = []
    private var stopping = false
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var thread: DedicatedThread?

    /// Starts the helper thread; nil when it cannot be created (the caller then sends alone).
    init?() {
        do {
            // The thread holds the sender until `stop()` ends it.
            thread = try DedicatedThread.spawn(name: "booksd-fanout") { self.run() }
        } catch {
            return nil
        }
    }

    /// Sends each `(fd, bytes)` of `theirs` on the helper thread while `mine` runs on the caller's
    /// thread; returns when both are done, with the helper's results in order (bytes sent, or
    /// `-errno`).
    func send(_ theirs: [(fd: Int32, bytes: [UInt8])], while mine: () -> Void) -> [Int] {
        batch = theirs
        start.signal()
        mine()
        done.wait()
        batch = []
        return results
    }

    /// Ends the helper thread (waits for it).
    func stop() {
        stopping = true
        start.signal()
        thread?.joinOrDetach()
        thread = nil
    }

    private func run() {
        while true {
            start.wait()
            if stopping { return }
            results = batch.map { Self.sendOnce($0.fd, $0.bytes) }
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

import BooksPlatform
import Dispatch

/// One `SocketServer.deliverPendingInput` call: the caller waits on it, the server thread
/// finishes it once (later `finish` calls are ignored).
final class PendingInputBarrier: Sendable {
    private let outcome = Locked<Bool?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Records the outcome (first call wins) and wakes the waiter.
    func finish(delivered: Bool) {
        let first = outcome.withLock { value -> Bool in
            guard value == nil else { return false }
            value = delivered
            return true
        }
        if first { semaphore.signal() }
    }

    /// Waits up to `timeout`; true only if the server finished it with `delivered: true`.
    func wait(timeout: Duration) -> Bool {
        let (seconds, atto) = timeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, atto) / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds))
        guard semaphore.wait(timeout: deadline) == .success else { return false }
        return outcome.withLock { $0 } ?? false
    }
}

/// The server thread's side of one `deliverPendingInput` call.
struct PendingInputWait {
    /// Per connection id: bytes still to read of those that were in its socket buffer.
    var remaining: [UInt64: Int]
    let barrier: PendingInputBarrier
    let deadline: ContinuousClock.Instant
}

import Glibc
import Synchronization

/// When a watcher thread last went round its loop (CLOCK_MONOTONIC milliseconds), so the watchdog
/// can tell a live watcher from a stuck or vanished one. Lock-free; any thread may read it.
final class LoopLiveness: Sendable {
    private let lastTick = Atomic<Int64>(LoopLiveness.nowMilliseconds())
    private let exited = Atomic<Bool>(false)

    /// Called by the watcher thread on every iteration.
    func tick() { lastTick.store(Self.nowMilliseconds(), ordering: .relaxed) }

    /// Called by the watcher thread when it leaves its loop.
    func markExited() { exited.store(true, ordering: .sequentiallyConsistent) }

    /// Whether the thread is still running and ticked within `milliseconds`.
    func isAlive(withinMilliseconds milliseconds: Int64) -> Bool {
        !exited.load(ordering: .sequentiallyConsistent)
            && Self.nowMilliseconds() - lastTick.load(ordering: .relaxed) <= milliseconds
    }

    static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

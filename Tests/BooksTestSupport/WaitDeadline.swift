/// The deadline of a test's wait that does not count the time the test process itself was kept
/// from running. On a 2-core machine Swift Testing's synchronous tests can hold every thread of
/// the cooperative pool for many seconds; a waiting task then resumes long after the pause it
/// asked for, and a plain deadline would blame the daemon under test for that time. Each pause
/// that resumes more than `grace` seconds late moves the deadline on by its lateness, up to
/// `timeout` seconds in all (so a wait still ends: at most twice its timeout, plus the last pause).
public struct WaitDeadline: Sendable {
    /// The seconds the wait was given.
    public let timeout: Double
    private var end: Double
    private var moved = 0.0
    private let grace: Double
    private let now: @Sendable () -> Double
    private let sleep: @Sendable (Double) async -> Void

    /// A deadline `timeout` seconds from now; pauses late by more than `grace` seconds extend it.
    /// `now` and `sleep` default to `MonotonicClock` (tests of this type pass a clock of their own).
    public init(
        timeout: Double, grace: Double = 0.5,
        now: @escaping @Sendable () -> Double = { MonotonicClock.seconds() },
        sleep: @escaping @Sendable (Double) async -> Void = { await MonotonicClock.pause(seconds: $0) }
    ) {
        self.timeout = timeout
        self.grace = grace
        self.now = now
        self.sleep = sleep
        end = now() + timeout
    }

    /// Whether the deadline (moved on by the late pauses so far) has passed.
    public var hasPassed: Bool { now() >= end }

    /// Seconds the deadline was moved on because the process was not scheduled.
    public var starvedSeconds: Double { moved }

    /// Suspends for `seconds`; a resumption later than `seconds + grace` moves the deadline on.
    public mutating func pause(seconds: Double) async {
        let before = now()
        await sleep(seconds)
        let late = now() - before - seconds
        guard late > grace, moved < timeout else { return }
        let step = min(late, timeout - moved)
        moved += step
        end += step
    }
}

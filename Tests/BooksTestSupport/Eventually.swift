/// Polls `condition` every `interval` seconds until it returns true or `timeout` seconds have
/// passed. Returns true as soon as the condition holds; at the deadline the condition is checked
/// once more and its value returned. Suspends between polls (no thread of the pool is blocked);
/// time the test process was not scheduled does not count (`WaitDeadline`).
@discardableResult
public func eventually(
    timeout: Double, interval: Double = 0.005,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    var deadline = WaitDeadline(timeout: timeout)
    while !deadline.hasPassed {
        if try await condition() { return true }
        await deadline.pause(seconds: interval)
    }
    return try await condition()
}

/// `eventually` for synchronous code: the same polling, but blocks the calling thread between polls.
@discardableResult
public func eventuallyBlocking(
    timeout: Double, interval: Double = 0.005,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = MonotonicClock.seconds() + timeout
    while MonotonicClock.seconds() < deadline {
        if try condition() { return true }
        MonotonicClock.sleep(seconds: interval)
    }
    return try condition()
}

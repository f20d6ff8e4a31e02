import BooksPlatform

/// Runs `body` once, when `done()` was called `count` times (at once for a count of 0), on the
/// thread of the last call.
final class Countdown: Sendable {
    private let left: Locked<Int>
    private let body: @Sendable () -> Void

    init(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        left = Locked(count)
        self.body = body
        if count == 0 { body() }
    }

    func done() {
        let finished = left.withLock { n -> Bool in
            n -= 1
            return n == 0
        }
        if finished { body() }
    }
}

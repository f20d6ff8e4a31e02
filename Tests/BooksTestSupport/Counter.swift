import BooksPlatform

/// A thread-safe counter, for tests that count what other tasks or threads saw.
public final class Counter: Sendable {
    private let count = Locked(0)

    /// A counter at zero.
    public init() {}

    /// The count now.
    public var value: Int { count.withLock { $0 } }

    /// Adds one.
    public func increment() { count.withLock { $0 += 1 } }
}

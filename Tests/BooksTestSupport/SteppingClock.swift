import BooksCore
import Synchronization

/// A clock for query budgets that moves on by one millisecond each time it is read, and counts
/// the reads: a budget of `n` ms is spent at the `n + 1`-th check, whatever the machine's speed.
public final class SteppingClock: Sendable {
    private let start = ContinuousClock.now
    private let count = Atomic<Int>(0)

    /// Creates a clock that has not been read.
    public init() {}

    /// How often the clock was read.
    public var reads: Int { count.load(ordering: .relaxed) }

    /// `start + k` ms at the k-th read (0-based).
    @Sendable public func now() -> ContinuousClock.Instant {
        start + .milliseconds(count.add(1, ordering: .relaxed).oldValue)
    }

    /// A budget of `milliseconds` on this clock, checked every `booksPerCheck` books or
    /// `workPerCheck` units of work.
    public func budget(milliseconds: Int, booksPerCheck: Int = 1, workPerCheck: Int = 1 << 40) -> QueryBudget {
        QueryBudget(
            limit: .milliseconds(milliseconds), booksPerCheck: booksPerCheck, workPerCheck: workPerCheck, now: now)
    }
}

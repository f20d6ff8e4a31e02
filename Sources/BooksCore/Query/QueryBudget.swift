/// How long one request may spend evaluating a filter and a sort over the books, so that no
/// client can occupy the daemon's engine (and delay every other client's reads and writes) for
/// longer than that.
///
/// Guarantees: an evaluation charged to a ``QueryMeter`` of this budget throws
/// ``QueryBudgetExceeded`` no later than one check interval after `limit` has elapsed since the
/// meter was made; the clock is read after at most `booksPerCheck` books or `workPerCheck` units
/// of estimated work (bytes compared, worst case), whichever comes first. An unlimited budget
/// never throws and never reads the clock.
public struct QueryBudget: Sendable {
    /// The longest an evaluation may take; nil for no limit.
    public var limit: Duration?
    /// The clock (injectable for tests).
    public var now: @Sendable () -> ContinuousClock.Instant
    /// Books evaluated between two clock reads at most.
    public var booksPerCheck: Int
    /// Estimated work units (see ``BookFilter``'s cost model) between two clock reads at most.
    public var workPerCheck: Int

    /// Creates a budget of `limit` (nil: unlimited), read from `now`.
    public init(
        limit: Duration?, booksPerCheck: Int = 256, workPerCheck: Int = 1 << 16,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.limit = limit
        self.now = now
        self.booksPerCheck = max(1, booksPerCheck)
        self.workPerCheck = max(1, workPerCheck)
    }

    /// No limit.
    public static let unlimited = QueryBudget(limit: nil)

    /// A meter that starts now.
    public func meter(totalBooks: Int) -> QueryMeter {
        QueryMeter(budget: self, totalBooks: totalBooks)
    }
}

/// The running account of one evaluation against its ``QueryBudget``.
public struct QueryMeter {
    let budget: QueryBudget
    let start: ContinuousClock.Instant?
    let totalBooks: Int
    /// Books evaluated so far.
    public private(set) var examinedBooks = 0
    private var booksSinceCheck = 0
    private var workSinceCheck = 0

    init(budget: QueryBudget, totalBooks: Int) {
        self.budget = budget
        self.totalBooks = totalBooks
        start = budget.limit == nil ? nil : budget.now()
    }

    /// Counts `books` evaluated books and `work` units of work; reads the clock when a check is
    /// due. - Throws: ``QueryBudgetExceeded`` once the budget's limit has elapsed.
    public mutating func charge(books: Int = 1, work: Int) throws(QueryBudgetExceeded) {
        examinedBooks += books
        guard let start, let limit = budget.limit else { return }
        booksSinceCheck += books
        workSinceCheck &+= work
        guard booksSinceCheck >= budget.booksPerCheck || workSinceCheck >= budget.workPerCheck else { return }
        booksSinceCheck = 0
        workSinceCheck = 0
        let elapsed = budget.now() - start
        if elapsed > limit {
            throw QueryBudgetExceeded(
                limit: limit, elapsed: elapsed, examinedBooks: examinedBooks, totalBooks: totalBooks)
        }
    }
}

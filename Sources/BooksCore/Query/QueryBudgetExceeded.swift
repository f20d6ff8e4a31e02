/// A request's filter or sort ran past its ``QueryBudget``: the evaluation was stopped and the
/// request fails (the daemon answers `query-too-expensive`); nothing else is affected.
public struct QueryBudgetExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    /// The budget that was exceeded.
    public var limit: Duration
    /// How long the evaluation had run when it was stopped.
    public var elapsed: Duration
    /// How many books had been evaluated (sort comparisons are not counted).
    public var examinedBooks: Int
    /// How many books the evaluation would have covered.
    public var totalBooks: Int

    /// Creates the error.
    public init(limit: Duration, elapsed: Duration, examinedBooks: Int, totalBooks: Int) {
        self.limit = limit
        self.elapsed = elapsed
        self.examinedBooks = examinedBooks
        self.totalBooks = totalBooks
    }

    /// Says what happened and what to do, for the client.
    public var description: String {
        """
        the query was stopped after \(Self.milliseconds(elapsed)) ms, past its budget of \
        \(Self.milliseconds(limit)) ms (query_budget_ms), having filtered \(examinedBooks) of \(totalBooks) books: \
        use fewer or shorter conditions (a long value is costly in contains and containsIgnoringCase)
        """
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

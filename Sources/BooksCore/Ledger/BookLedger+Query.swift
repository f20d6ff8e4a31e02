/// Queries over the context's books, within a ``QueryBudget``.
extension BookLedger {
    /// Runs a query over all books (file order, then held books by id); also returns how many
    /// matched before limit and offset.
    /// - Throws: ``QueryBudgetExceeded`` when filtering and sorting take longer than `budget`.
    public func query(
        _ query: BookQuery, budget: QueryBudget = .unlimited
    ) throws(QueryBudgetExceeded) -> (books: [Book], total: Int) {
        var meter = budget.meter(totalBooks: bookCount)
        var matching = try books(matching: query.filter, meter: &meter)
        let total = matching.count
        if let sort = query.sort { try Self.sort(&matching, by: sort, meter: &meter) }
        let window = BookQuery(filter: .all, sort: nil, limit: query.limit, offset: query.offset)
        return (window.apply(to: matching), total)
    }

    /// The books `filter` matches, file order first, then held books by id (a `snapshot`).
    /// - Throws: ``QueryBudgetExceeded`` when filtering takes longer than `budget`.
    public func books(
        matching filter: BookFilter, budget: QueryBudget = .unlimited
    ) throws(QueryBudgetExceeded) -> [Book] {
        var meter = budget.meter(totalBooks: bookCount)
        return try books(matching: filter, meter: &meter)
    }

    private func books(matching filter: BookFilter, meter: inout QueryMeter) throws(QueryBudgetExceeded) -> [Book] {
        guard !filter.isEmpty else { return books }
        var matching: [Book] = []
        func visit(_ book: Book) throws(QueryBudgetExceeded) {
            var work = 0
            if filter.matches(book, work: &work) { matching.append(book) }
            try meter.charge(work: work)
        }
        try document.forEachBook(visit)
        for book in held.values.sorted(by: { $0.id < $1.id }) { try visit(book) }
        return matching
    }

    /// The books of `books` (a state that is not this context's file: one rebuilt from the
    /// history) that `query`'s filter matches, in their order or sorted by its sort; its offset
    /// and limit are not applied. No copy when nothing is filtered or sorted.
    /// - Throws: ``QueryBudgetExceeded`` when filtering and sorting take longer than `budget`.
    public static func selecting(
        _ books: [Book], _ query: BookQuery, budget: QueryBudget = .unlimited
    ) throws(QueryBudgetExceeded) -> [Book] {
        var meter = budget.meter(totalBooks: books.count)
        var matching = books
        if !query.filter.isEmpty {
            matching = []
            for book in books {
                var work = 0
                if query.filter.matches(book, work: &work) { matching.append(book) }
                try meter.charge(work: work)
            }
        }
        if let sort = query.sort { try Self.sort(&matching, by: sort, meter: &meter) }
        return matching
    }

    /// Sorts `books`, charging each comparison to `meter` (work: the shorter compared field).
    private static func sort(
        _ books: inout [Book], by sort: BookSort, meter: inout QueryMeter
    ) throws(QueryBudgetExceeded) {
        var exceeded: QueryBudgetExceeded?
        do {
            try books.sort { a, b in
                let work = min(sort.field.value(of: a).utf8.count, sort.field.value(of: b).utf8.count) + 1
                do throws(QueryBudgetExceeded) {
                    try meter.charge(books: 0, work: work)
                } catch {
                    exceeded = error
                    throw error
                }
                return sort.areInIncreasingOrder(a, b)
            }
        } catch {
            // The comparator throws nothing but the budget's error, recorded above.
            if let exceeded { throw exceeded }
        }
    }
}

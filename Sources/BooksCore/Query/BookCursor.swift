/// The books of one state of a `BookLedger`, read a few at a time: the source of paged
/// snapshots and lists.
///
/// Guarantees:
/// - It reads an immutable copy of the state it was made from: later changes to the context do
///   not show (the file's bytes and line table are shared copy-on-write; a change to the context
///   while a cursor is alive copies what it changes once).
/// - Every filter and sort is evaluated when the cursor is made (on the engine, within a
///   ``QueryBudget``); reading it (`next`, on the server thread) only decodes the books already
///   chosen, so reading a page costs the same whatever the filter.
/// - Unsorted queries are not materialised: a filtered one keeps the matching lines' indices (4
///   bytes a match), and books are decoded from the file's bytes as they are read. A sorted query
///   materialises its matching books once (sorting needs them all).
/// - `next` yields books in the query's order (file order, then held books by id, without a
///   sort), skipping `offset` matches and stopping after `limit`; `total` counts every match.
public struct BookCursor: Sendable {
    private enum Source: Sendable {
        /// Book lines of `bytes`: those `matches` names (every book line when nil), then `held`
        /// (already filtered).
        case file(bytes: [UInt8], lines: [LineRecord], matches: [Int32]?, held: [Book])
        case sorted([Book])
    }

    private let source: Source
    private var position = 0
    private var heldIndex = 0
    private var toSkip: Int
    private var remaining: Int?
    /// How many books match the query before `offset` and `limit`.
    public let total: Int
    /// True once every book was read (`next` then yields nothing).
    public private(set) var isExhausted = false

    /// A cursor over the books of `context` that match `query`; filters (and sorts) now.
    /// - Throws: ``QueryBudgetExceeded`` when that takes longer than `budget`.
    public init(context: BookLedger, query: BookQuery, budget: QueryBudget = .unlimited) throws(QueryBudgetExceeded) {
        toSkip = max(query.offset, 0)
        remaining = query.limit.map { max($0, 0) }
        if query.sort != nil {
            let sorted = try context.query(BookQuery(filter: query.filter, sort: query.sort), budget: budget).books
            source = .sorted(sorted)
            total = sorted.count
        } else {
            let source = try Self.matching(context, query.filter, budget: budget)
            self.source = source
            if case .file(_, _, let matches, let held) = source {
                total = (matches?.count ?? context.document.bookCount) + held.count
            } else {
                total = 0
            }
        }
    }

    /// A cursor over the books of `books` (a state rebuilt from the history, not a file) that
    /// match `query`, in their order or its sort; filters (and sorts) now, nothing is rendered
    /// or parsed.
    /// - Throws: ``QueryBudgetExceeded`` when that takes longer than `budget`.
    public init(books: [Book], query: BookQuery, budget: QueryBudget = .unlimited) throws(QueryBudgetExceeded) {
        toSkip = max(query.offset, 0)
        remaining = query.limit.map { max($0, 0) }
        let selected = try BookLedger.selecting(books, query, budget: budget)
        source = .sorted(selected)
        total = selected.count
    }

    /// A cursor over `books` as given (already filtered, sorted and paged elsewhere, e.g. pages of
    /// another daemon's answer), stating `total` as the number of books that matched.
    public init(selected books: [Book], total: Int) {
        toSkip = 0
        remaining = nil
        source = .sorted(books)
        self.total = total
    }

    /// A cursor over every book of `context` that `filter` matches, in file order (a snapshot);
    /// filters now. `total` is counted too.
    /// - Throws: ``QueryBudgetExceeded`` when filtering takes longer than `budget`.
    public init(context: BookLedger, filter: BookFilter, budget: QueryBudget = .unlimited) throws(QueryBudgetExceeded) {
        try self.init(context: context, query: BookQuery(filter: filter), budget: budget)
    }

    /// The file's book lines that `filter` matches (all, without evaluating anything, for an empty
    /// filter) and the matching held books by id.
    private static func matching(
        _ context: BookLedger, _ filter: BookFilter, budget: QueryBudget
    ) throws(QueryBudgetExceeded) -> Source {
        let document = context.document
        var held = context.held.values.sorted { $0.id < $1.id }
        guard !filter.isEmpty else {
            return .file(bytes: document.bytes, lines: document.lines, matches: nil, held: held)
        }
        var meter = budget.meter(totalBooks: context.bookCount)
        var matches: [Int32] = []
        let lines = document.lines
        var exceeded: QueryBudgetExceeded?
        document.bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for index in lines.indices where lines[index].kind == .book {
                var work = 0
                if filter.matches(BookDocument.decodeBook(lines[index], base), work: &work) {
                    matches.append(Int32(truncatingIfNeeded: index))
                }
                do throws(QueryBudgetExceeded) {
                    try meter.charge(work: work)
                } catch {
                    exceeded = error
                    return
                }
            }
        }
        if let exceeded { throw exceeded }
        var kept: [Book] = []
        for book in held {
            var work = 0
            if filter.matches(book, work: &work) { kept.append(book) }
            try meter.charge(work: work)
        }
        held = kept
        return .file(bytes: document.bytes, lines: lines, matches: matches, held: held)
    }

    /// Calls `body` with the next books in order until it returns false or the books run out
    /// (then `isExhausted` is true). The book for which `body` returned false counts as read.
    public mutating func next(_ body: (Book) -> Bool) {
        guard !isExhausted else { return }
        if remaining == 0 {
            isExhausted = true
            return
        }
        skipWithoutDecoding()
        switch source {
        case .sorted(let books):
            while position < books.count {
                let book = books[position]
                position += 1
                if !offer(book, body) { return }
            }
        case .file(let bytes, let lines, let matches, let held):
            let stopped: Bool = bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                if let matches {
                    while position < matches.count {
                        let book = BookDocument.decodeBook(lines[Int(matches[position])], base)
                        position += 1
                        if !offer(book, body) { return true }
                    }
                } else {
                    while position < lines.count {
                        let record = lines[position]
                        position += 1
                        guard record.kind == .book else { continue }
                        if !offer(BookDocument.decodeBook(record, base), body) { return true }
                    }
                }
                return false
            }
            if stopped { return }
            while heldIndex < held.count {
                let book = held[heldIndex]
                heldIndex += 1
                if !offer(book, body) { return }
            }
        }
        isExhausted = true
    }

    /// Passes over the `offset` books still to skip without decoding them (a page deep in a large
    /// list costs its own books, not every book before it).
    private mutating func skipWithoutDecoding() {
        guard toSkip > 0 else { return }
        switch source {
        case .sorted(let books):
            let skipped = min(toSkip, books.count - position)
            position += skipped
            toSkip -= skipped
        case .file(_, let lines, let matches, let held):
            if let matches {
                let skipped = min(toSkip, matches.count - position)
                position += skipped
                toSkip -= skipped
            } else {
                while toSkip > 0, position < lines.count {
                    if lines[position].kind == .book { toSkip -= 1 }
                    position += 1
                }
            }
            let fileDone = position >= (matches?.count ?? lines.count)
            if toSkip > 0, fileDone {
                let skipped = min(toSkip, held.count - heldIndex)
                heldIndex += skipped
                toSkip -= skipped
            }
        }
    }

    /// Applies offset and limit to one matching book; returns whether to go on.
    private mutating func offer(_ book: Book, _ body: (Book) -> Bool) -> Bool {
        if toSkip > 0 {
            toSkip -= 1
            return true
        }
        if let left = remaining {
            remaining = left - 1
            if left - 1 == 0 {
                _ = body(book)
                isExhausted = true
                return false
            }
        }
        return body(book)
    }
}

/// A fetch request in the spirit of SwiftData's `FetchDescriptor`: filter, sort, limit and offset.
public struct BookQuery: Sendable, Hashable, Codable {
    /// Which books match.
    public var filter: BookFilter
    /// The order of the results; `nil` keeps file order.
    public var sort: BookSort?
    /// At most this many results (after `offset`); `nil` for no limit.
    public var limit: Int?
    /// Skip this many matching books first.
    public var offset: Int

    /// Creates a query.
    public init(filter: BookFilter = .all, sort: BookSort? = nil, limit: Int? = nil, offset: Int = 0) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Applies the query to books given in file order.
    public func apply<S: Sequence>(to books: S) -> [Book] where S.Element == Book {
        var matching = books.filter(filter.matches)
        if let sort { matching.sort(by: sort.areInIncreasingOrder) }
        let start = min(max(offset, 0), matching.count)
        var end = matching.count
        if let limit { end = min(end, start + max(limit, 0)) }
        return Array(matching[start..<end])
    }
}

import BooksCore

extension Request {
    /// Sets `filter`, `sort`, `limit` and `offset` to `query`'s, as the wire carries them: an
    /// empty filter and an offset of 0 are left out (the daemon reads their absence as the same).
    public mutating func setQuery(_ query: BookQuery) {
        filter = query.filter.isEmpty ? nil : query.filter
        sort = query.sort
        limit = query.limit
        offset = query.offset == 0 ? nil : query.offset
    }
}

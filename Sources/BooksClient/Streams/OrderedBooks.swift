import BooksCore

/// Books keyed by id that remember their order (file order from a snapshot, new books appended).
struct OrderedBooks: Sendable, Hashable {
    private(set) var byID: [String: Book] = [:]
    private var ids: [String] = []

    init() {}

    init(_ books: [Book]) {
        for book in books where byID.updateValue(book, forKey: book.id) == nil { ids.append(book.id) }
    }

    var count: Int { byID.count }

    subscript(id: String) -> Book? { byID[id] }

    /// The books in order.
    var books: [Book] { ids.compactMap { byID[$0] } }

    /// Inserts or replaces `book` (a new id goes last).
    mutating func upsert(_ book: Book) {
        if byID.updateValue(book, forKey: book.id) == nil { ids.append(book.id) }
    }

    /// Removes the books with these ids (one pass over the order).
    mutating func remove(_ removed: Set<String>) {
        guard !removed.isEmpty else { return }
        for id in removed { byID.removeValue(forKey: id) }
        ids.removeAll { removed.contains($0) }
    }
}

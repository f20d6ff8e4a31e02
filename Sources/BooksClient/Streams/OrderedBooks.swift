import BooksCore

/// Books keyed by id that remember their order (file order from a snapshot, new books appended).
///
/// Every operation costs O(1) per book it touches, amortized: a removal leaves a hole in the
/// order that a later compaction (once holes outnumber books) closes, so deleting one book from a
/// million-book mirror does not walk the million.
struct OrderedBooks: Sendable, Hashable {
    private struct Entry: Sendable, Hashable {
        var book: Book
        var slot: Int
    }

    private var entries: [String: Entry] = [:]
    /// Ids in order; removed books leave nil until the next compaction.
    private var order: [String?] = []
    private var holes = 0

    init() {}

    init(_ books: [Book]) {
        for book in books { upsert(book) }
    }

    var count: Int { entries.count }

    subscript(id: String) -> Book? { entries[id]?.book }

    /// The books by id (built on each call: O(n)).
    var byID: [String: Book] { entries.mapValues(\.book) }

    /// The books in order.
    var books: [Book] { order.compactMap { $0.flatMap { entries[$0]?.book } } }

    /// Inserts or replaces `book` (a new id goes last).
    mutating func upsert(_ book: Book) {
        if let existing = entries[book.id] {
            entries[book.id] = Entry(book: book, slot: existing.slot)
        } else {
            entries[book.id] = Entry(book: book, slot: order.count)
            order.append(book.id)
        }
    }

    /// Removes the books with these ids.
    mutating func remove(_ removed: Set<String>) {
        for id in removed {
            guard let entry = entries.removeValue(forKey: id) else { continue }
            order[entry.slot] = nil
            holes += 1
        }
        if holes > 64, holes > entries.count { compact() }
    }

    /// Closes the holes in the order (and renumbers the slots).
    private mutating func compact() {
        var kept: [String?] = []
        kept.reserveCapacity(entries.count)
        for case let id? in order {
            entries[id]!.slot = kept.count
            kept.append(id)
        }
        order = kept
        holes = 0
    }

    static func == (a: OrderedBooks, b: OrderedBooks) -> Bool { a.books == b.books }

    func hash(into hasher: inout Hasher) { hasher.combine(books) }
}

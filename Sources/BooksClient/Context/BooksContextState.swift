import BooksCore
import BooksProtocol

/// The pure core of `BooksContext`: what the context knows of the file and its unsaved changes.
/// No I/O; every method is a value transformation, so the rules are unit-tested without a daemon.
struct BooksContextState: Sendable {
    /// The prefix of temporary ids, e.g. `temp:3`.
    static let temporaryPrefix = "temp:"

    /// Books fetched or saved, with the version they had then (the base of a conditional save).
    private(set) var known: [String: VersionedBook] = [:]
    /// Unsaved insertions, in order.
    private(set) var insertions: [BookInsertion] = []
    /// Unsaved changes of known books (only the fields set, each different from the known
    /// value), and the order they were first changed in.
    private(set) var changes: [String: BookPatch] = [:]
    private var changeOrder: [String] = []
    /// Unsaved deletions of known books, in order.
    private(set) var deletions: [String] = []
    private var nextTemporary = 1

    /// True when a save would change something.
    var hasChanges: Bool { !insertions.isEmpty || !changes.isEmpty || !deletions.isEmpty }

    /// Adds a new book; returns its temporary id (valid until it is saved).
    mutating func insert(name: String, author: String) -> String {
        let id = Self.temporaryPrefix + String(nextTemporary)
        nextTemporary += 1
        insertions.append(BookInsertion(tempId: id, name: name, author: author))
        return id
    }

    /// Changes the fields given of book `id` (a known book or an unsaved insertion).
    mutating func update(_ id: String, name: String? = nil, author: String? = nil) throws(BooksContextError) {
        if let k = insertions.firstIndex(where: { $0.tempId == id }) {
            if let name { insertions[k].name = name }
            if let author { insertions[k].author = author }
            return
        }
        if deletions.contains(id) { throw .deletedBook(id) }
        guard known[id] != nil else { throw .unknownBook(id) }
        var patch = changes[id] ?? BookPatch(id: id)
        if let name { patch.name = name }
        if let author { patch.author = author }
        if changes[id] == nil { changeOrder.append(id) }
        changes[id] = patch
        normalize(id)
    }

    /// Drops the fields of `id`'s change that equal its known values, and the change when none
    /// is left.
    private mutating func normalize(_ id: String) {
        guard var patch = changes[id], let base = known[id]?.book else { return }
        if patch.name == base.name { patch.name = nil }
        if patch.author == base.author { patch.author = nil }
        if patch.name == nil, patch.author == nil {
            changes[id] = nil
            changeOrder.removeAll { $0 == id }
        } else {
            changes[id] = patch
        }
    }

    /// Book `id` as this context sees it (its known values with its unsaved change).
    private func changed(_ id: String, from book: Book) -> Book {
        guard let patch = changes[id] else { return book }
        return Book(id: id, name: patch.name ?? book.name, author: patch.author ?? book.author)
    }

    /// Deletes book `id`: an unsaved insertion is simply dropped.
    mutating func delete(_ id: String) throws(BooksContextError) {
        if let k = insertions.firstIndex(where: { $0.tempId == id }) {
            insertions.remove(at: k)
            return
        }
        if deletions.contains(id) { return }
        guard known[id] != nil else { throw .unknownBook(id) }
        changes[id] = nil
        changeOrder.removeAll { $0 == id }
        deletions.append(id)
    }

    /// Drops every unsaved change.
    mutating func rollback() {
        insertions.removeAll()
        changes.removeAll()
        changeOrder.removeAll()
        deletions.removeAll()
    }

    /// Whether `id` has an unsaved change or deletion.
    func isPending(_ id: String) -> Bool { changes[id] != nil || deletions.contains(id) }

    /// The `save` request for the unsaved changes: conditional on the versions fetched.
    var request: (inserted: [BookInsertion], updated: [BookPatch], deleted: [BookDeletion]) {
        let updated = changeOrder.compactMap { id -> BookPatch? in
            guard var patch = changes[id] else { return nil }
            patch.expectedVersion = known[id]?.version
            return patch
        }
        let deleted = deletions.map { BookDeletion(id: $0, expectedVersion: known[$0]?.version) }
        return (insertions, updated, deleted)
    }

    /// Records what the file holds: books without an unsaved change take these values and
    /// versions; a book with one keeps the version it was changed from (so the save still
    /// detects that it changed meanwhile).
    mutating func absorb(_ books: [VersionedBook]) {
        for book in books where !isPending(book.book.id) {
            known[book.book.id] = book
        }
    }

    /// Bases the unsaved changes of the conflicting books on their current versions (the next
    /// save writes them over what the file holds now); a book no longer in the file loses its
    /// unsaved change and is forgotten.
    mutating func rebase(on conflicts: [BookConflict]) {
        for conflict in conflicts {
            if let current = conflict.current, let version = conflict.currentVersion {
                known[conflict.id] = VersionedBook(book: current, version: version)
                normalize(conflict.id)
            } else {
                known[conflict.id] = nil
                changes[conflict.id] = nil
                changeOrder.removeAll { $0 == conflict.id }
                deletions.removeAll { $0 == conflict.id }
            }
        }
    }

    /// A save of exactly `sent` succeeded: the changes it carried are no longer pending (changes
    /// made while it ran stay), the known books take their new versions, deleted ones are forgotten.
    mutating func saved(
        _ result: BookSaveResult,
        sent: (inserted: [BookInsertion], updated: [BookPatch], deleted: [BookDeletion])
    ) {
        for insertion in sent.inserted {
            insertions.removeAll { $0 == insertion }
        }
        for patch in sent.updated
        where changes[patch.id] == BookPatch(id: patch.id, name: patch.name, author: patch.author) {
            changes[patch.id] = nil
            changeOrder.removeAll { $0 == patch.id }
        }
        for deletion in sent.deleted {
            deletions.removeAll { $0 == deletion.id }
            known[deletion.id] = nil
        }
        for book in result.books {
            known[book.book.id] = book
            normalize(book.book.id)  // a change made while the save ran keeps what is still new
        }
    }

    /// The query's answer as the context sees it: `server` (books of the file in the order of a
    /// query with the same filter and sort) with the unsaved changes applied — deleted books
    /// dropped, changed ones with their new values (and added when they now match), insertions
    /// added last in file order — then filtered, sorted, offset and limited by `query`.
    func merged(server: [Book], query: BookQuery) -> [Book] {
        var seen = Set<String>()
        var books: [Book] = []
        for book in server where !deletions.contains(book.id) {
            seen.insert(book.id)
            books.append(changed(book.id, from: book))
        }
        for id in changeOrder where !seen.contains(id) {
            if let book = known[id]?.book { books.append(changed(id, from: book)) }
        }
        books += insertions.map { Book(id: $0.tempId, name: $0.name, author: $0.author) }
        return query.apply(to: books)
    }

    /// The query to ask the daemon so that `merged` can answer `query` exactly: with unsaved
    /// changes, the window grows by the number of books they may push out (offset applied
    /// locally); without a sort, the whole file (the file position of a changed book that did not
    /// match before is only known from it).
    func serverQuery(for query: BookQuery) -> BookQuery {
        guard hasChanges else { return query }
        guard query.sort != nil else { return BookQuery() }
        let window = query.limit.map { max(query.offset, 0) + max($0, 0) + changes.count + deletions.count }
        return BookQuery(filter: query.filter, sort: query.sort, limit: window, offset: 0)
    }
}

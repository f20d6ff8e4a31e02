import BooksCore
import BooksProtocol

/// A `save` request, checked: books to insert (each with its temporary id and the permanent id
/// the daemon gave it), books to change and books to delete — applied all or nothing.
public struct SaveChanges: Sendable, Hashable {
    /// The insertions, in request order.
    public var inserted: [BookInsertion]
    /// The permanent id of each insertion (parallel to `inserted`), fixed when the request is
    /// accepted so that a retried save that did land is not inserted twice.
    public var insertedIDs: [String]
    /// The changes (absent fields keep their values).
    public var updated: [BookPatch]
    /// The deletions.
    public var deleted: [BookDeletion]
    /// The version the client read (``Request/base``): the save is merged onto the books held
    /// from there (``merged(onto:theirs:)``) instead of checked against `expectedVersion`s.
    public var base: ResumePoint?

    /// Checks a `save` request's shape: something to do, within `SaveLimits`, temporary ids
    /// non-empty and unique, no id changed or deleted twice. `makeID` gives each insertion its
    /// permanent id (a UUID in the daemon). `maxChanges`: more only for a replica's own writes
    /// of the owner's books (a first copy is one save of the whole store).
    public init(
        request: Request, maxChanges: Int = SaveLimits.maxChanges, makeID: () -> String
    ) throws(ProtocolError) {
        let inserted = request.inserted ?? []
        let updated = request.updated ?? []
        let deleted = request.deleted ?? []
        let count = inserted.count + updated.count + deleted.count
        guard count > 0 else {
            throw ProtocolError(
                .invalidArgument, "save needs at least one book in \"inserted\", \"updated\" or \"deleted\"")
        }
        guard count <= maxChanges else {
            // `invalid-argument`, not `limit-exceeded`: retrying the same save cannot succeed.
            throw ProtocolError(
                .invalidArgument, "a save may change at most \(maxChanges) books, not \(count); split it")
        }
        var tempIDs = Set<String>()
        for insertion in inserted {
            guard !insertion.tempId.isEmpty, insertion.tempId.utf8.count <= SaveLimits.maxTempIDBytes else {
                throw ProtocolError(
                    .invalidArgument, "a tempId must have 1 to \(SaveLimits.maxTempIDBytes) bytes")
            }
            guard tempIDs.insert(insertion.tempId).inserted else {
                throw ProtocolError(.invalidArgument, "tempId \(insertion.tempId) appears twice in one save")
            }
        }
        var ids = Set<String>()
        for id in updated.map(\.id) + deleted.map(\.id) where !ids.insert(id).inserted {
            throw ProtocolError(
                .invalidArgument, "book \(id) appears twice in one save (updated or deleted once at most)")
        }
        self.inserted = inserted
        self.insertedIDs = inserted.map { _ in makeID() }
        self.updated = updated
        self.deleted = deleted
        self.base = request.base
    }

    /// The books to insert, with their permanent ids, in request order.
    var insertedBooks: [Book] {
        zip(inserted, insertedIDs).map { Book(id: $1, name: $0.name, author: $0.author) }
    }

    /// Temporary to permanent ids.
    var remap: [String: String] {
        Dictionary(uniqueKeysWithValues: zip(inserted.map(\.tempId), insertedIDs))
    }

    /// The ids of existing books the save changes or deletes.
    var touchedIDs: [String] { updated.map(\.id) + deleted.map(\.id) }

    /// Checks the save against `context`: every book to change or delete is in the file, at the
    /// expected version when one is given, and no permanent id is taken. Every book that fails
    /// is reported (`conflict` with `conflicts`), not just the first. `assignedIDs` as in
    /// `WritePlan`: an insertion whose book is already in the file with the same values is a
    /// retried save that landed.
    func check(context: BookLedger, assignedIDs: Set<String>) -> Result<SavedBooks, ProtocolError> {
        var conflicts: [BookConflict] = []
        for book in insertedBooks {
            if let current = context.book(id: book.id), !(assignedIDs.contains(book.id) && current == book) {
                conflicts.append(
                    BookConflict(
                        id: book.id, current: current, currentVersion: context.version(of: book.id),
                        message: "a book with id \(book.id) exists"))
            }
        }
        var updatedBooks: [Book] = []
        for patch in updated {
            if let conflict = Self.conflict(patch.id, expected: patch.expectedVersion, context: context) {
                conflicts.append(conflict)
            } else if var book = context.book(id: patch.id) {
                if let name = patch.name { book.name = name }
                if let author = patch.author { book.author = author }
                updatedBooks.append(book)
            }
        }
        var deletedBooks: [Book] = []
        for deletion in deleted {
            if let conflict = Self.conflict(deletion.id, expected: deletion.expectedVersion, context: context) {
                conflicts.append(conflict)
            } else if let book = context.book(id: deletion.id) {
                deletedBooks.append(book)
            }
        }
        guard conflicts.isEmpty else {
            let ids = conflicts.map(\.id).joined(separator: ", ")
            return .failure(
                ProtocolError(
                    .conflict, "the save conflicts with the file on \(conflicts.count) book(s): \(ids); nothing saved",
                    current: conflicts.count == 1 ? conflicts[0].current : nil,
                    currentVersion: conflicts.count == 1 ? conflicts[0].currentVersion : nil, conflicts: conflicts))
        }
        return .success(
            SavedBooks(inserted: insertedBooks, updated: updatedBooks, deleted: deletedBooks, remap: remap))
    }

    /// Nil when `id` is a readable book in the file at version `expected` (if given); else why not.
    private static func conflict(_ id: String, expected: UInt64?, context: BookLedger) -> BookConflict? {
        guard let error = WritePlan<Never>.existing(id, expected: expected, context: context) else { return nil }
        return BookConflict(
            id: id, current: error.current, currentVersion: error.currentVersion, message: error.message)
    }
}

/// What an accepted save will report once written.
public struct SavedBooks: Sendable, Hashable {
    /// The inserted books with their permanent ids, in request order.
    public var inserted: [Book]
    /// The changed books as they will be, in request order.
    public var updated: [Book]
    /// The deleted books as they were.
    public var deleted: [Book]
    /// Temporary to permanent ids.
    public var remap: [String: String]

    /// True when the context holds exactly what the save wrote.
    func landed(in context: BookLedger) -> Bool {
        (inserted + updated).allSatisfy { context.book(id: $0.id) == $0 }
            && deleted.allSatisfy { context.book(id: $0.id) == nil }
    }
}

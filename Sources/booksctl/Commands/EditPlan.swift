import BooksClient
import BooksCore
import BooksProtocol

/// The pure part of `booksctl edit`: the text the editor gets, what the edited text changes
/// against it, and the `save` that writes those changes on top of what the daemon holds now.
///
/// Guarantees: only the books the edit touched are sent (with the save's base, the daemon merges
/// them onto what others wrote since), each with the version it had in the base, so a daemon
/// that does not know `base` writes nothing if any of them changed meanwhile; for that daemon,
/// `rebased(onto:)` merges the edit field by field with the current values of the books that did
/// change (`ThreeWayMerge`), keeping the editor's value where both changed the same field.
struct EditPlan: Sendable {
    /// The base: the books as the editor got them, with their versions, in the file's order.
    var base: [VersionedBook]
    /// Books the edit changed: the editor's values (same id as in the base).
    var updated: [Book] = []
    /// Ids of books the edit deleted (rows removed).
    var deleted: [String] = []
    /// `name|author` rows the edit added.
    var inserted: [BookInsertion] = []
    /// The edit as made (`updated`, `deleted` change when rebased; this stays): each touched
    /// book's edited values, nil for a deleted one.
    var edit: [String: Book?] = [:]

    /// True when the edit changes no book.
    var isEmpty: Bool { updated.isEmpty && deleted.isEmpty && inserted.isEmpty }

    /// The header comment and one `id|name|author` row per book of `base`.
    static func text(of base: [VersionedBook], store: String?, seq: UInt64) -> [UInt8] {
        var out = Array(
            """
            # booksctl edit: \(store.map { "store \($0), " } ?? "")seq \(seq). One book per line: id|name|author.
            # Change a name or an author, delete a row to delete the book, add a book as name|author.
            # Lines starting with # are ignored. Save and quit to write; exit the editor with an error
            # (vim: :cq) to write nothing.

            """.utf8)
        for item in base {
            out += RowEscaping.row(for: item.book)
            out.append(0x0A)
        }
        return out
    }

    /// Why an edited text cannot be saved.
    enum Refusal: Error, Equatable {
        /// Lines that are neither a book, a new book, a comment nor blank.
        case badLines([BadLine])
        /// Rows with an id the base did not have (a book cannot be given an id by hand).
        case unknownIDs([String])
    }

    /// The changes of `edited` against `base` (whose text is `written`).
    static func plan(base: [VersionedBook], written: [UInt8], edited: [UInt8]) -> Result<EditPlan, Refusal> {
        let old = BookDocument(parsing: written)
        let new = BookDocument(parsing: edited, previous: old)
        if new.badLineCount > 0 { return .failure(.badLines(new.badLines)) }
        let changes = BookDocument.diff(from: old, to: new)
        if !changes.inserted.isEmpty { return .failure(.unknownIDs(changes.inserted.map(\.id))) }
        var plan = EditPlan(base: base)
        plan.updated = changes.updated.map(\.new)
        plan.deleted = changes.deleted.map(\.id)
        for book in plan.updated { plan.edit[book.id] = .some(book) }
        for id in plan.deleted { plan.edit[id] = .some(nil) }
        plan.inserted = new.newBookRows.enumerated().map { k, row in
            BookInsertion(tempId: "new-\(k + 1)", name: row.name, author: row.author)
        }
        return .success(plan)
    }

    /// The base version of each book, by id.
    var baseByID: [String: VersionedBook] {
        Dictionary(base.map { ($0.book.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The `save` request's three lists, conditional on the base versions (or, for books that
    /// were rebased, on the versions they were rebased onto).
    func request(
        expecting versions: [String: UInt64]
    ) -> (
        inserted: [BookInsertion], updated: [BookPatch], deleted: [BookDeletion]
    ) {
        let base = baseByID
        func version(_ id: String) -> UInt64? { versions[id] ?? base[id]?.version }
        let patches = updated.map {
            BookPatch(id: $0.id, name: $0.name, author: $0.author, expectedVersion: version($0.id))
        }
        let deletions = deleted.map { BookDeletion(id: $0, expectedVersion: version($0)) }
        return (inserted, patches, deletions)
    }

    /// What rebasing onto the current values of the books that changed meanwhile gives.
    struct Rebase: Sendable {
        /// The plan to send now (only books that still differ from the current values).
        var plan: EditPlan
        /// The version each rebased book must still have.
        var expected: [String: UInt64]
        /// Books the others deleted and the editor changed: to insert again with their id.
        var reinserted: [Book]
        /// Same-field (and delete-against-change) conflicts; the editor's value is the one sent.
        var conflicts: [MergeConflict]
    }

    /// Merges the edit of each book in `current` (the save's `conflict` list) three ways: base =
    /// the book as the editor got it, mine = the edit, theirs = its current values (nil: gone).
    func rebased(onto current: [BookConflict], expected previous: [String: UInt64]) -> Rebase {
        let base = baseByID
        let mineByID = Dictionary(updated.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let deletedIDs = Set(deleted)
        var next = self
        var expected = previous
        var reinserted: [Book] = []
        var conflicts: [MergeConflict] = []
        var dropped: Set<String> = []
        var replaced: [String: Book] = [:]
        for item in current {
            let id = item.id
            // The edit as made, not as an earlier round merged it: each round merges from the base.
            let mine = edit[id] ?? base[id]?.book
            let merged = ThreeWayMerge.merge(id: id, base: base[id]?.book, mine: mine, theirs: item.current)
            conflicts += merged.conflicts
            switch (merged.book, item.current) {
            case (nil, nil):
                dropped.insert(id)
            case (nil, .some):
                expected[id] = item.currentVersion
            case (.some(let book), nil):
                dropped.insert(id)
                reinserted.append(book)
            case (.some(let book), .some(let theirs)):
                if Optional(book).isIdentical(to: theirs) {
                    dropped.insert(id)
                } else {
                    replaced[id] = book
                    expected[id] = item.currentVersion
                }
            }
            // A delete the merge turned into a kept book (the others changed it) is no delete.
            if merged.book != nil { next.deleted.removeAll { $0 == id } }
        }
        next.updated = updated.compactMap { book in
            dropped.contains(book.id) ? nil : replaced[book.id] ?? book
        }
        for (id, book) in replaced where mineByID[id] == nil && !deletedIDs.contains(id) {
            next.updated.append(book)
        }
        next.deleted.removeAll { dropped.contains($0) }
        return Rebase(plan: next, expected: expected, reinserted: reinserted, conflicts: conflicts)
    }
}

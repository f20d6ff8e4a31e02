import BooksCore
import BooksProtocol

/// A `save` that named its base, merged onto the books held now: the plain save that writes the
/// merge, and what to report.
struct MergedClientSave: Sendable, Hashable {
    /// The save to write: unconditional, only the books whose merged values differ from those
    /// held (a book the others deleted and the saver changed is inserted again with its id).
    var save: SaveChanges
    /// The client's insertions then every book the save named that the merge keeps, as it will
    /// be, in request order.
    var books: [Book]
    /// The ids of the books whose merged values differ from what the save sent, sorted.
    var merged: [String]
    /// Same-field (and delete-against-change) conflicts: the saver's value is the one written.
    var conflicts: [MergeConflict]
    /// The client's temporary ids to permanent ids.
    var remap: [String: String]
}

extension SaveChanges {
    /// The save merged three ways onto `context`, whose books differ from those at the base by
    /// `theirs` (the net change since the base, from the history), by the rules of a save from a
    /// stale buffer: base = the book at the base, mine = the base's values with the patch's
    /// fields (nil for a deletion), theirs = the book held now; per book
    /// ``ThreeWayMerge/merge(id:base:mine:theirs:)``. Insertions are kept as they are.
    ///
    /// Fails with `not-found` for a book that was not in the list at the base, and with
    /// `conflict` for a book whose row is malformed in the file now; nothing is written then.
    func merged(onto context: BookLedger, theirs: NetChanges) -> Result<MergedClientSave, ProtocolError> {
        var plain = self
        plain.base = nil
        plain.updated = []
        plain.deleted = []
        var books = insertedBooks
        var merged: [String] = []
        var conflicts: [MergeConflict] = []
        let named = updated.map { ($0.id, Optional($0)) } + deleted.map { ($0.id, BookPatch?.none) }
        for (id, patch) in named {
            if let error = context.held[id].flatMap({ _ in
                WritePlan<Never>.existing(id, expected: nil, context: context)
            }) {
                return .failure(error)
            }
            let current = context.book(id: id)
            let base = theirs[id].map(\.before) ?? current
            guard let base else {
                let seq = self.base.map { " at seq \($0.seq)" } ?? ""
                return .failure(ProtocolError(.notFound, "no book with id \(id) in the list\(seq) (the save's base)"))
            }
            var mine: Book?
            if let patch {
                var book = base
                if let name = patch.name { book.name = name }
                if let author = patch.author { book.author = author }
                mine = book
            }
            let result = ThreeWayMerge.merge(id: id, base: base, mine: mine, theirs: current)
            conflicts += result.conflicts
            if !result.book.isIdentical(to: mine) { merged.append(id) }
            switch (result.book, current) {
            case (nil, nil): break
            case (nil, .some): plain.deleted.append(BookDeletion(id: id))
            case (.some(let book), nil):
                plain.inserted.append(BookInsertion(tempId: "\u{0}\(id)", name: book.name, author: book.author))
                plain.insertedIDs.append(id)
            case (.some(let book), .some(let now)):
                if !Optional(book).isIdentical(to: now) {
                    plain.updated.append(BookPatch(id: id, name: book.name, author: book.author))
                }
            }
            if let book = result.book { books.append(book) }
        }
        return .success(
            MergedClientSave(save: plain, books: books, merged: merged.sorted(), conflicts: conflicts, remap: remap))
    }
}

import BooksCore
import BooksProtocol

/// The outcome of planning a group of client writes against the current context: one save that
/// carries every accepted write, the writes refused (with their error) and those deferred to the
/// next group because they touch a book an earlier write in this group already touches.
///
/// Pure: it reads the context and changes nothing, so group commit is testable without files.
public struct WritePlan<Ticket: Sendable>: Sendable {
    /// What an accepted write will report once saved.
    public enum Outcome: Sendable {
        /// Inserted books with their ids (in draft order).
        case inserted([Book])
        case updated([Book])
        case deleted([Book])
        /// A `save`: everything it inserts, changes and deletes, and its remap.
        case saved(SavedBooks)
    }

    public var save = SaveRequest(assignIDsToNewRows: true)
    public var accepted: [(ticket: Ticket, outcome: Outcome)] = []
    public var refused: [(ticket: Ticket, error: ProtocolError)] = []
    public var deferred: [(ticket: Ticket, operation: WriteOperation)] = []

    /// Plans `writes` in order. Each write is all-or-nothing. `assignedIDs` are ids the daemon
    /// gave to inserts itself: when such a book is already in the file with the same values (a
    /// retried write that did land), the insert succeeds without writing it again.
    public init(
        _ writes: [(ticket: Ticket, operation: WriteOperation)], context: BookLedger,
        assignedIDs: Set<String> = []
    ) {
        var touched = Set<String>()
        var counter = 0
        for (ticket, operation) in writes {
            if operation.touchedIDs.contains(where: touched.contains) {
                deferred.append((ticket, operation))
                continue
            }
            switch Self.check(operation, context: context, assignedIDs: assignedIDs) {
            case .failure(let error):
                refused.append((ticket, error))
            case .success(let outcome):
                switch operation {
                case .insert(let drafts):
                    var books: [Book] = []
                    for draft in drafts {
                        counter += 1
                        let book = Book(id: draft.id ?? "", name: draft.name, author: draft.author)
                        books.append(book)
                        if context.book(id: book.id) != book {
                            save.inserted.append(
                                .init(
                                    temporaryID: "new:\(counter)", id: draft.id, name: draft.name,
                                    author: draft.author))
                        }
                    }
                    accepted.append((ticket, .inserted(books)))
                case .update:
                    if case .updated(let books) = outcome {
                        save.updated.append(contentsOf: books.filter { context.book(id: $0.id) != $0 })
                    }
                    accepted.append((ticket, outcome))
                case .delete(let ids, _):
                    save.deleted.append(contentsOf: ids)
                    accepted.append((ticket, outcome))
                case .save:
                    if case .saved(let saved) = outcome {
                        for book in saved.inserted where context.book(id: book.id) != book {
                            counter += 1
                            save.inserted.append(
                                .init(temporaryID: "new:\(counter)", id: book.id, name: book.name, author: book.author))
                        }
                        save.updated.append(contentsOf: saved.updated.filter { context.book(id: $0.id) != $0 })
                        save.deleted.append(contentsOf: saved.deleted.map(\.id))
                    }
                    accepted.append((ticket, outcome))
                }
                touched.formUnion(operation.touchedIDs)
            }
        }
    }

    /// Validates one write against the context.
    static func check(
        _ operation: WriteOperation, context: BookLedger,
        assignedIDs: Set<String> = []
    ) -> Result<Outcome, ProtocolError> {
        switch operation {
        case .insert(let drafts):
            var seen = Set<String>()
            for draft in drafts {
                if let id = draft.id {
                    if id.isEmpty { return .failure(ProtocolError(.invalidArgument, "a book id cannot be empty")) }
                    // Ids are stored verbatim (never unescaped when read), so characters the row
                    // format escapes would not read back as the same id.
                    if id.hasPrefix("#") || id.first?.isWhitespace == true
                        || id.unicodeScalars.contains(where: { "|\\\n\r\t".unicodeScalars.contains($0) })
                    {
                        return .failure(
                            ProtocolError(
                                .invalidArgument,
                                """
                                book id \(id.debugDescription) cannot start with # or a space, or contain |, \\, \
                                a tab or a line break
                                """
                            ))
                    }
                    if let scalar = id.unicodeScalars.first(where: Self.isControlOrBidi) {
                        let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
                        return .failure(
                            ProtocolError(
                                .invalidArgument,
                                "book id \(id.debugDescription) contains the control or bidi character \(code)"))
                    }
                    if let current = context.book(id: id),
                        !(assignedIDs.contains(id) && current == Book(id: id, name: draft.name, author: draft.author))
                    {
                        return .failure(
                            ProtocolError(
                                .conflict, "a book with id \(id) exists", current: current,
                                currentVersion: context.version(of: id)))
                    }
                    if !seen.insert(id).inserted {
                        return .failure(ProtocolError(.invalidArgument, "id \(id) appears twice in one insert"))
                    }
                }
            }
            return .success(.inserted([]))
        case .update(let patches):
            var books: [Book] = []
            var seen = Set<String>()
            for patch in patches {
                guard seen.insert(patch.id).inserted else {
                    return .failure(ProtocolError(.invalidArgument, "id \(patch.id) appears twice in one update"))
                }
                if let error = existing(patch.id, expected: patch.expectedVersion, context: context) {
                    return .failure(error)
                }
                var book = context.book(id: patch.id)!
                if let name = patch.name { book.name = name }
                if let author = patch.author { book.author = author }
                books.append(book)
            }
            return .success(.updated(books))
        case .delete(let ids, let versions):
            var books: [Book] = []
            var seen = Set<String>()
            for (k, id) in ids.enumerated() {
                guard seen.insert(id).inserted else {
                    return .failure(ProtocolError(.invalidArgument, "id \(id) appears twice in one delete"))
                }
                if let error = existing(id, expected: versions?[k], context: context) { return .failure(error) }
                books.append(context.book(id: id)!)
            }
            return .success(.deleted(books))
        case .save(let changes):
            return changes.check(context: context, assignedIDs: assignedIDs).map { .saved($0) }
        }
    }

    /// Control characters (C0, DEL, C1) and bidirectional formatting characters, which could
    /// rewrite a terminal or reorder what a reader sees.
    static func isControlOrBidi(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Nil when `id` is a book in the file whose version is `expected` (if given); else the error.
    static func existing(_ id: String, expected: UInt64?, context: BookLedger) -> ProtocolError? {
        if let held = context.held[id] {
            return ProtocolError(
                .conflict, "the row of book \(id) is malformed in the file; fix it by hand first",
                current: held, currentVersion: context.version(of: id))
        }
        guard let current = context.book(id: id) else { return ProtocolError(.notFound, "no book with id \(id)") }
        let version = context.version(of: id)
        if let expected, expected != version {
            return ProtocolError(
                .conflict, "book \(id) is at version \(version), not \(expected)",
                current: current, currentVersion: version)
        }
        return nil
    }
}

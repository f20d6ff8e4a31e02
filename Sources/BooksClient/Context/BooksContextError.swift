import BooksCore
import BooksProtocol

/// Every failure of a `BooksContext`.
///
/// Guarantees: a failed `save` changes nothing in the file and keeps every unsaved change in the
/// context (`rollback()` drops them); `.conflict` lists every conflicting book, not only the first.
public enum BooksContextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The save was refused because these books changed (or were deleted) in the file since the
    /// context fetched them: each entry carries the book's current values and version.
    case conflict([BookConflict])
    /// The id is neither a book this context fetched nor one it inserted: fetch it first, so
    /// that the save can check it is unchanged.
    case unknownBook(String)
    /// The book was deleted in this context (unsaved); it cannot be changed.
    case deletedBook(String)
    /// The request failed (transport, or another daemon error such as `invalid-argument`).
    case client(BooksClientError)

    /// A short human explanation naming the books concerned.
    public var description: String {
        switch self {
        case .conflict(let conflicts):
            let books = conflicts.map { conflict in
                if let current = conflict.current, let version = conflict.currentVersion {
                    "\(conflict.id) (now \(current.name.debugDescription) by \(current.author.debugDescription), "
                        + "version \(version))"
                } else {
                    "\(conflict.id) (no longer in the file)"
                }
            }
            return "save refused, nothing written: \(conflicts.count) book(s) changed since they were fetched: "
                + books.joined(separator: ", ")
        case .unknownBook(let id):
            return "book \(id) was not fetched by this context (fetch it before changing it)"
        case .deletedBook(let id):
            return "book \(id) was deleted in this context (save or roll back first)"
        case .client(let error):
            return error.description
        }
    }

    /// Turns a client error into a context error (`conflict` with its list).
    static func from(_ error: BooksClientError) -> BooksContextError {
        if case .daemon(let failure) = error, failure.code == .conflict {
            if let conflicts = failure.conflicts { return .conflict(conflicts) }
            return .conflict([])
        }
        return .client(error)
    }
}

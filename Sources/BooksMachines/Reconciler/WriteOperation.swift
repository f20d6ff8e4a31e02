import BooksCore
import BooksProtocol
import FoundationEssentials

/// One client write request, decoded: what it wants done, atomically.
public enum WriteOperation: Sendable, Hashable {
    case insert([BookDraft])
    case update([BookPatch])
    case delete(ids: [String], expectedVersions: [UInt64]?)
    /// Inserts, changes and deletes, all or nothing.
    case save(SaveChanges)

    /// Builds the operation from a request (`insert`, `update`, `delete`), or an
    /// `invalid-argument` error naming what is missing. `makeID` gives a `save`'s insertions
    /// their permanent ids.
    public init(request: Request, makeID: () -> String = { UUID().uuidString }) throws(ProtocolError) {
        switch request.op {
        case .insert:
            guard let books = request.books, !books.isEmpty else {
                throw ProtocolError(.invalidArgument, "insert needs a non-empty \"books\" array")
            }
            self = .insert(books)
        case .update:
            guard let patches = request.patches, !patches.isEmpty else {
                throw ProtocolError(.invalidArgument, "update needs a non-empty \"patches\" array")
            }
            self = .update(patches)
        case .delete:
            guard let ids = request.ids, !ids.isEmpty else {
                throw ProtocolError(.invalidArgument, "delete needs a non-empty \"ids\" array")
            }
            if let versions = request.expectedVersions, versions.count != ids.count {
                throw ProtocolError(.invalidArgument, "\"expectedVersions\" must have one entry per id")
            }
            self = .delete(ids: ids, expectedVersions: request.expectedVersions)
        case .save:
            self = .save(try SaveChanges(request: request, makeID: makeID))
        default:
            throw ProtocolError(.invalidArgument, "\(request.op.rawValue) is not a write")
        }
    }

    /// True for an `insert`, and for a `save` that only inserts.
    var onlyInserts: Bool {
        switch self {
        case .insert: true
        case .save(let changes): changes.updated.isEmpty && changes.deleted.isEmpty
        case .update, .delete: false
        }
    }

    /// The ids of existing books this operation touches.
    var touchedIDs: [String] {
        switch self {
        case .insert(let drafts): return drafts.compactMap(\.id)
        case .update(let patches): return patches.map(\.id)
        case .delete(let ids, _): return ids
        case .save(let changes): return changes.insertedIDs + changes.touchedIDs
        }
    }
}

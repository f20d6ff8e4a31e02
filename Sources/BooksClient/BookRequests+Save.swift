import BooksCore
import BooksProtocol

/// What a `save` wrote: the permanent id of each inserted book and the new versions.
public struct BookSaveResult: Sendable, Hashable {
    /// The permanent id of each inserted book, keyed by the temporary id it was sent with.
    public var remap: [String: String]
    /// The inserted books (with their permanent ids) then the changed books, as written, with
    /// their new versions.
    public var books: [VersionedBook]
    /// The lineage the save is part of.
    public var epoch: String?
    /// The sequence number of the change set that holds the save.
    public var seq: UInt64

    /// Creates a save result.
    public init(remap: [String: String], books: [VersionedBook], epoch: String?, seq: UInt64) {
        self.remap = remap
        self.books = books
        self.epoch = epoch
        self.seq = seq
    }
}

extension BookRequests {
    /// Inserts, changes and deletes books all or nothing, in one durable write and one change set
    /// (SwiftData's `save` of a `DataStore`). Each insertion carries a temporary id; the result
    /// maps them to the permanent ids the daemon gave.
    ///
    /// - Throws: `.daemon` with `conflict` and `ProtocolError.conflicts` listing every book whose
    ///   `expectedVersion` does not match or that is gone (nothing is written then);
    ///   `invalid-argument` for an empty save, a repeated temporary id, or a book both changed and
    ///   deleted, or more than `SaveLimits.maxChanges` books.
    public func save(
        inserted: [BookInsertion] = [], updated: [BookPatch] = [], deleted: [BookDeletion] = []
    ) async throws(BooksClientError) -> BookSaveResult {
        let result = try await call(.save) {
            $0.inserted = inserted.isEmpty ? nil : inserted
            $0.updated = updated.isEmpty ? nil : updated
            $0.deleted = deleted.isEmpty ? nil : deleted
        }
        let books = result.books ?? []
        let versions = result.versions ?? []
        guard versions.count == books.count else {
            throw .protocolError(
                ProtocolError(.badRequest, "save: \(books.count) books but \(versions.count) versions"))
        }
        return BookSaveResult(
            remap: result.remap ?? [:], books: zip(books, versions).map { VersionedBook(book: $0, version: $1) },
            epoch: result.epoch, seq: result.seq ?? 0)
    }
}

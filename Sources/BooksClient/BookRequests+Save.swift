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
    /// A save with a base: the ids of the books written with others' changes merged in (what
    /// was written differs from what was sent), sorted. Empty otherwise.
    public var merged: [String]
    /// A save with a base: the conflicts it recorded (the saver's value is the one written; the
    /// others' value is kept until `resolve`), as `conflicts()` lists them. Empty otherwise.
    public var conflicts: [RecordedConflict]

    /// Creates a save result.
    public init(
        remap: [String: String], books: [VersionedBook], epoch: String?, seq: UInt64, merged: [String] = [],
        conflicts: [RecordedConflict] = []
    ) {
        self.remap = remap
        self.books = books
        self.epoch = epoch
        self.seq = seq
        self.merged = merged
        self.conflicts = conflicts
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
        try await save(inserted: inserted, updated: updated, deleted: deleted, base: nil)
    }

    /// Saves changes made to the books as they were at `base` (the epoch and seq of the read
    /// they were made on: `BookPage.epoch`/`seq`, a feed's position): the daemon merges each
    /// changed or deleted book field by field with what others wrote since, like a save from a
    /// stale editor buffer, and writes the result in one durable change set (marked merged with
    /// the base). `updated` patches name the fields changed from the base (absent fields keep
    /// the others' value); `expectedVersion`s are not checked. Where both sides changed the
    /// same field (or one deleted a book the other changed), this save's value is written and
    /// the conflict is recorded: listed in ``BookSaveResult/conflicts`` and by `conflicts()`,
    /// settled with `resolve(_:take:)`. With `base` nil, the same as
    /// ``save(inserted:updated:deleted:)``.
    ///
    /// - Throws: `.daemon` with `base-not-kept` when the base is older than the history the
    ///   daemon keeps (or of another epoch): nothing was written; read again and retry.
    ///   `not-found` for a book that was not in the list at the base; `invalid-argument` as for
    ///   ``save(inserted:updated:deleted:)``.
    public func save(
        inserted: [BookInsertion] = [], updated: [BookPatch] = [], deleted: [BookDeletion] = [], base: ResumePoint?
    ) async throws(BooksClientError) -> BookSaveResult {
        let result = try await call(.save) {
            $0.inserted = inserted.isEmpty ? nil : inserted
            $0.updated = updated.isEmpty ? nil : updated
            $0.deleted = deleted.isEmpty ? nil : deleted
            $0.base = base
        }
        let books = result.books ?? []
        let versions = result.versions ?? []
        guard versions.count == books.count else {
            throw .protocolError(
                ProtocolError(.badRequest, "save: \(books.count) books but \(versions.count) versions"))
        }
        return BookSaveResult(
            remap: result.remap ?? [:], books: zip(books, versions).map { VersionedBook(book: $0, version: $1) },
            epoch: result.epoch, seq: result.seq ?? 0, merged: result.merged ?? [], conflicts: result.conflicts ?? [])
    }
}

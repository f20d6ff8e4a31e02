/// Record-level changes between two states of the book list, keyed by book id.
///
/// Guarantees: an id appears at most once across `inserted`, `updated` and `deleted`; `inserted`
/// and `updated` follow the new file's order, `deleted` the old file's order; an update always
/// changes the name or the author. Reordering rows, comments, blank and bad lines yield an empty set.
public struct ChangeSet: Sendable, Hashable, Codable {
    /// Books that did not exist before.
    public var inserted: [Book]
    /// Books whose name or author changed, with old and new values.
    public var updated: [BookUpdate]
    /// Books that no longer exist, with their last known values.
    public var deleted: [Book]

    /// Creates a change set.
    public init(inserted: [Book] = [], updated: [BookUpdate] = [], deleted: [Book] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// True when no book changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The number of books touched.
    public var count: Int { inserted.count + updated.count + deleted.count }

    /// Whether this only reports books as updated with their values unchanged (a member outside
    /// `id|name|author` was edited: ``BookLedger/touch(ids:source:time:actor:)``).
    public var isTouch: Bool {
        inserted.isEmpty && deleted.isEmpty && !updated.isEmpty && updated.allSatisfy { $0.old == $0.new }
    }
}

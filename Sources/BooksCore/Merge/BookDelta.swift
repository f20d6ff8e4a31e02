/// What became of one book between two versions: its values before and after (nil: absent).
public struct BookDelta: Sendable, Hashable, Codable {
    /// The book in the older version (nil: it did not exist).
    public var before: Book?
    /// The book in the newer version (nil: it no longer exists).
    public var after: Book?

    /// Creates a delta.
    public init(before: Book?, after: Book?) {
        self.before = before
        self.after = after
    }
}

/// The net per-book effect of a run of change sets, keyed by id: for each id touched, its state
/// before the first change and after the last. An id inserted and deleted again, or changed and
/// changed back, has no net change and is left out.
///
/// Guarantee: applying the deltas to the books of the older version yields the books of the newer
/// one, whatever the run of change sets between them was.
public struct NetChanges: Sendable, Hashable, Codable {
    /// Every id touched, with its first `before` and last `after` (possibly equal).
    private var touched: [String: BookDelta] = [:]

    /// No changes.
    public init() {}

    /// The net effect of `changeSets`, oldest first.
    public init(composing changeSets: [ChangeSet]) {
        for changes in changeSets { append(changes) }
    }

    /// The net effect of one change set.
    public init(_ changes: ChangeSet) { self.init(composing: [changes]) }

    /// Adds the change set that followed the ones composed so far.
    public mutating func append(_ changes: ChangeSet) {
        for book in changes.inserted { touched[book.id, default: BookDelta(before: nil, after: nil)].after = book }
        for update in changes.updated {
            touched[update.new.id, default: BookDelta(before: update.old, after: nil)].after = update.new
        }
        for book in changes.deleted { touched[book.id, default: BookDelta(before: book, after: nil)].after = nil }
    }

    /// The deltas by book id (ids with no net change left out).
    public var deltas: [String: BookDelta] { touched.filter { !$0.value.before.isIdentical(to: $0.value.after) } }

    /// True when no book changed.
    public var isEmpty: Bool { touched.values.allSatisfy { $0.before.isIdentical(to: $0.after) } }

    /// The number of books with a net change.
    public var count: Int { touched.values.reduce(0) { $0 + ($1.before.isIdentical(to: $1.after) ? 0 : 1) } }

    /// The delta of the book with `id`, if it changed.
    public subscript(id: String) -> BookDelta? {
        guard let delta = touched[id], !delta.before.isIdentical(to: delta.after) else { return nil }
        return delta
    }
}

extension Optional where Wrapped == Book {
    /// Byte-for-byte equality (`==` on `String` is canonical equivalence: `é` equals `e` + U+0301,
    /// which are different rows in the file).
    public func isIdentical(to other: Book?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case (.some(let a), .some(let b)):
            return a.id.utf8.elementsEqual(b.id.utf8) && a.name.utf8.elementsEqual(b.name.utf8)
                && a.author.utf8.elementsEqual(b.author.utf8)
        default: return false
        }
    }
}

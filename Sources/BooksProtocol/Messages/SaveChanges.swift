import BooksCore

/// A book a `save` inserts: the daemon gives it a permanent id and reports the mapping from
/// `tempId` in the reply's `remap`.
public struct BookInsertion: Sendable, Hashable, Codable {
    /// The client's temporary id: unique within one save, non-empty; never written to the file.
    public var tempId: String
    /// The title.
    public var name: String
    /// The author.
    public var author: String

    /// Creates an insertion.
    public init(tempId: String, name: String, author: String) {
        self.tempId = tempId
        self.name = name
        self.author = author
    }
}

/// A book a `save` deletes. With `expectedVersion`, the whole save fails with `conflict` unless
/// the book's current version is exactly that.
public struct BookDeletion: Sendable, Hashable, Codable {
    /// The book's id.
    public var id: String
    /// The version the client saw, or nil to delete whatever the book holds now.
    public var expectedVersion: UInt64?

    /// Creates a deletion.
    public init(id: String, expectedVersion: UInt64? = nil) {
        self.id = id
        self.expectedVersion = expectedVersion
    }
}

/// One book that made a `save` fail with `conflict`: its current values and version, or none
/// when it is no longer in the file (or the row cannot be read, see `message`).
public struct BookConflict: Sendable, Hashable, Codable {
    /// The book's id.
    public var id: String
    /// The book's current values; nil when it is no longer in the file.
    public var current: Book?
    /// The book's current version; nil when it is no longer in the file.
    public var currentVersion: UInt64?
    /// Why this book conflicts, e.g. `book b1 is at version 7, not 4`.
    public var message: String

    /// Creates a conflict entry.
    public init(id: String, current: Book?, currentVersion: UInt64?, message: String) {
        self.id = id
        self.current = current
        self.currentVersion = currentVersion
        self.message = message
    }
}

/// The limits of one `save` request (besides the line length limit, which bounds every request).
public enum SaveLimits {
    /// At most this many inserted, updated and deleted books together.
    public static let maxChanges = 10_000
    /// A temporary id is at most this many UTF-8 bytes.
    public static let maxTempIDBytes = 256
}

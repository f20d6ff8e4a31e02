import BooksCore

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

/// A book with its version: the seq of the change set that last touched it, on the side that holds
/// it (the daemon a client reads from, the engine a NATS bucket is filled from).
public struct VersionedBook: Sendable, Hashable, Codable {
    /// The book's current values.
    public var book: Book
    /// Pass as `expectedVersion` to make a write conditional on the book being unchanged.
    public var version: UInt64

    /// Creates a versioned book.
    public init(book: Book, version: UInt64) {
        self.book = book
        self.version = version
    }
}

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

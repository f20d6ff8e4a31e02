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

/// One book: the unit every part of BookSync reads, writes and reports.
///
/// A `Book` is a plain value. Two books are equal when all three fields are equal; a book's
/// identity across changes is its `id` alone.
public struct Book: Sendable, Hashable, Codable {
    /// The permanent identifier (in files written by BookSync, a UUID string). Never empty.
    public var id: String
    /// The title, any Unicode text (may contain `|`, `\`, newlines and tabs).
    public var name: String
    /// The author, any Unicode text (may contain `|`, `\`, newlines and tabs).
    public var author: String

    /// Creates a book from its three fields.
    public init(id: String, name: String, author: String) {
        self.id = id
        self.name = name
        self.author = author
    }
}

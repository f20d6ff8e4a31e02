/// A change of one book's values: the same `id` before and after, with a different name or author.
public struct BookUpdate: Sendable, Hashable, Codable {
    /// The values before the change.
    public var old: Book
    /// The values after the change (`new.id == old.id`).
    public var new: Book

    /// Creates an update; `old.id` and `new.id` must be equal.
    public init(old: Book, new: Book) {
        precondition(old.id == new.id, "a BookUpdate keeps the book's id")
        self.old = old
        self.new = new
    }
}

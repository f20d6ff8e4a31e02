/// A field of a book that queries filter and sort on.
public enum BookField: String, Sendable, Hashable, Codable, CaseIterable {
    case id, name, author

    /// The field's value in `book`.
    public func value(of book: Book) -> String {
        switch self {
        case .id: return book.id
        case .name: return book.name
        case .author: return book.author
        }
    }
}

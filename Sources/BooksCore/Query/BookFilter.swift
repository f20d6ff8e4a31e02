/// A predicate over books: every condition must hold (an empty filter matches every book).
public struct BookFilter: Sendable, Hashable, Codable {
    /// The conditions, all of which must match.
    public var conditions: [BookCondition]

    /// Creates a filter from conditions joined by "and".
    public init(_ conditions: [BookCondition] = []) {
        self.conditions = conditions
    }

    /// A filter that matches every book.
    public static let all = BookFilter()

    /// True when every condition matches `book`.
    public func matches(_ book: Book) -> Bool {
        for condition in conditions where !condition.matches(book) { return false }
        return true
    }

    /// True when the filter has no conditions.
    public var isEmpty: Bool { conditions.isEmpty }
}

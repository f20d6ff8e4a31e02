/// How a condition compares a field with its value.
public enum MatchOperator: String, Sendable, Hashable, Codable, CaseIterable {
    /// The field equals the value exactly (Unicode canonical equivalence, as Swift's `==`).
    case equals
    /// The field contains the value (exact characters).
    case contains
    /// The field contains the value, ignoring case.
    case containsIgnoringCase
    /// The field starts with the value.
    case prefix
}

/// One test on one field of a book, as a `#Predicate` clause would express it.
public struct BookCondition: Sendable, Hashable, Codable {
    /// The field tested.
    public var field: BookField
    /// The comparison.
    public var op: MatchOperator
    /// The value compared against.
    public var value: String

    /// Creates a condition.
    public init(_ field: BookField, _ op: MatchOperator, _ value: String) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// True when `book` satisfies the condition.
    public func matches(_ book: Book) -> Bool {
        let text = field.value(of: book)
        switch op {
        case .equals: return text == value
        case .contains: return value.isEmpty || text.contains(value)
        case .containsIgnoringCase: return value.isEmpty || text.lowercased().contains(value.lowercased())
        case .prefix: return text.hasPrefix(value)
        }
    }
}

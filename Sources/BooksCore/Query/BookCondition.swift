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
    /// The field starts with the value, ignoring case (both lowercased, as `containsIgnoringCase`).
    case prefixIgnoringCase
}

/// One test on one field of a book, as a `#Predicate` clause would express it.
public struct BookCondition: Sendable, Hashable, Codable {
    /// The field tested.
    public var field: BookField
    /// The comparison.
    public var op: MatchOperator
    /// The value compared against.
    public var value: String {
        get { storedValue }
        set {
            storedValue = newValue
            foldedValue = newValue.lowercased()
        }
    }
    private var storedValue: String
    /// `value` lowercased once, for the `…IgnoringCase` operators (derived: not encoded, not compared).
    private var foldedValue: String

    private enum CodingKeys: String, CodingKey {
        case field, op, value
    }

    /// Creates a condition.
    public init(_ field: BookField, _ op: MatchOperator, _ value: String) {
        self.field = field
        self.op = op
        storedValue = value
        foldedValue = value.lowercased()
    }

    /// Decodes `{"field","op","value"}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(BookField.self, forKey: .field), try c.decode(MatchOperator.self, forKey: .op),
            try c.decode(String.self, forKey: .value))
    }

    /// Encodes `{"field","op","value"}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(field, forKey: .field)
        try c.encode(op, forKey: .op)
        try c.encode(value, forKey: .value)
    }

    public static func == (a: BookCondition, b: BookCondition) -> Bool {
        a.field == b.field && a.op == b.op && a.value == b.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(field)
        hasher.combine(op)
        hasher.combine(value)
    }

    /// True when `book` satisfies the condition.
    public func matches(_ book: Book) -> Bool {
        var folded = FoldedFields()
        return matches(book, folded: &folded)
    }

    /// True when `book` satisfies the condition; a field is lowercased at most once per book,
    /// however many conditions ignore its case (`folded` keeps it between them).
    func matches(_ book: Book, folded: inout FoldedFields) -> Bool {
        switch op {
        case .equals: return field.value(of: book) == value
        case .contains: return TextSearch.contains(field.value(of: book), value)
        case .containsIgnoringCase:
            return value.isEmpty || TextSearch.contains(folded.value(of: field, in: book), foldedValue)
        case .prefix: return field.value(of: book).hasPrefix(value)
        case .prefixIgnoringCase: return folded.value(of: field, in: book).hasPrefix(foldedValue)
        }
    }
    /// An upper estimate of the work (bytes compared) of testing `book`, for ``QueryMeter``: the
    /// naive search bound (field × value) for `contains` and `containsIgnoringCase` (plus folding
    /// the field), the shorter length for `equals` and `prefix`.
    func worstCaseWork(on book: Book) -> Int {
        let fieldBytes = field.value(of: book).utf8.count
        let valueBytes = value.utf8.count
        switch op {
        case .equals, .prefix: return min(fieldBytes, valueBytes) + 1
        case .prefixIgnoringCase: return min(fieldBytes, valueBytes) + 1 + fieldBytes
        case .contains: return (fieldBytes + 1) * (valueBytes + 1)
        case .containsIgnoringCase: return (fieldBytes + 1) * (valueBytes + 1) + fieldBytes
        }
    }
}

/// A book's fields lowercased on first use, for the conditions of one filter on one book.
struct FoldedFields {
    private var id: String?
    private var name: String?
    private var author: String?

    mutating func value(of field: BookField, in book: Book) -> String {
        switch field {
        case .id:
            if let id { return id }
            id = book.id.lowercased()
            return id!
        case .name:
            if let name { return name }
            name = book.name.lowercased()
            return name!
        case .author:
            if let author { return author }
            author = book.author.lowercased()
            return author!
        }
    }
}

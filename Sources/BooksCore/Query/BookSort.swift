/// A sort order on one field, ties broken by id so that every order is total and stable.
public struct BookSort: Sendable, Hashable, Codable {
    /// The field sorted on.
    public var field: BookField
    /// Ascending (`true`) or descending.
    public var ascending: Bool

    /// Creates a sort order.
    public init(_ field: BookField, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    /// Parses `name`, `-name`, `+author`, `id`… (a leading `-` means descending).
    public init?(parsing text: String) {
        var t = Substring(text)
        var ascending = true
        if t.hasPrefix("-") {
            ascending = false
            t = t.dropFirst()
        } else if t.hasPrefix("+") {
            t = t.dropFirst()
        }
        guard let field = BookField(rawValue: String(t)) else { return nil }
        self.init(field, ascending: ascending)
    }

    /// True when `a` sorts before `b`.
    public func areInIncreasingOrder(_ a: Book, _ b: Book) -> Bool {
        let x = field.value(of: a)
        let y = field.value(of: b)
        if x != y { return ascending ? x < y : y < x }
        return ascending ? a.id < b.id : b.id < a.id
    }
}

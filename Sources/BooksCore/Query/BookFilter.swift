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

    /// True when every condition matches `book`. Each field is lowercased at most once per book.
    public func matches(_ book: Book) -> Bool {
        var folded = FoldedFields()
        for condition in conditions where !condition.matches(book, folded: &folded) { return false }
        return true
    }

    /// `matches(book)`, adding the conditions' estimated work (`BookCondition.worstCaseWork`) to
    /// `work`: a condition after the first that fails is neither evaluated nor counted.
    func matches(_ book: Book, work: inout Int) -> Bool {
        var folded = FoldedFields()
        for condition in conditions {
            work &+= condition.worstCaseWork(on: book)
            if !condition.matches(book, folded: &folded) { return false }
        }
        return true
    }

    /// What one filter may ask, so that no request can keep the daemon busy for long: at most
    /// `maxConditions` conditions, each value at most `maxValueBytes` UTF-8 bytes.
    public struct Limits: Sendable, Hashable {
        public var maxConditions: Int
        public var maxValueBytes: Int

        /// The daemon's limits: 64 conditions of at most 1 KiB each.
        public static let `default` = Limits(maxConditions: 64, maxValueBytes: 1024)

        /// Creates limits.
        public init(maxConditions: Int, maxValueBytes: Int) {
            self.maxConditions = maxConditions
            self.maxValueBytes = maxValueBytes
        }
    }

    /// Why the filter exceeds `limits`, or nil when it does not.
    public func violation(of limits: Limits = .default) -> String? {
        if conditions.count > limits.maxConditions {
            return "a filter may have at most \(limits.maxConditions) conditions, not \(conditions.count)"
        }
        if let long = conditions.first(where: { $0.value.utf8.count > limits.maxValueBytes }) {
            return "a filter value may have at most \(limits.maxValueBytes) bytes, not \(long.value.utf8.count)"
        }
        return nil
    }

    /// True when the filter has no conditions.
    public var isEmpty: Bool { conditions.isEmpty }
}

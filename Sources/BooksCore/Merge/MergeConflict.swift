/// A change that the saver and others made differently to the same book, found by a three-way
/// merge. The saver's side (`mine`) stands in the merged file; the other side (`theirs`) is kept
/// here, so it can be taken instead.
public struct MergeConflict: Sendable, Hashable, Codable {
    /// What the two sides disagree on.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Both changed the name, to different values.
        case name
        /// Both changed the author, to different values.
        case author
        /// The saver deleted the book, others changed it (the changed book is kept).
        case deletedByMine
        /// Others deleted the book, the saver changed it (the saver's book is kept).
        case deletedByTheirs
    }

    /// The book's id.
    public var id: String
    /// What is in conflict.
    public var kind: Kind
    /// The book in the base version (nil: both sides inserted it).
    public var base: Book?
    /// The book as the saver left it (nil: deleted).
    public var mine: Book?
    /// The book as the others left it (nil: deleted).
    public var theirs: Book?

    /// Creates a conflict.
    public init(id: String, kind: Kind, base: Book?, mine: Book?, theirs: Book?) {
        self.id = id
        self.kind = kind
        self.base = base
        self.mine = mine
        self.theirs = theirs
    }

    /// The field in conflict (`name` or `author`), or `book` when one side deleted it.
    public var field: String {
        switch kind {
        case .name: return "name"
        case .author: return "author"
        case .deletedByMine, .deletedByTheirs: return "book"
        }
    }

    /// The saver's value of the field in conflict (nil: deleted).
    public var mineValue: String? { value(of: mine) }
    /// The others' value of the field in conflict (nil: deleted).
    public var theirsValue: String? { value(of: theirs) }

    private func value(of book: Book?) -> String? {
        guard let book else { return nil }
        switch kind {
        case .name: return book.name
        case .author: return book.author
        case .deletedByMine, .deletedByTheirs: return "\(book.name)|\(book.author)"
        }
    }
}

/// One line-level edit of a document, as a store applies a save request.
public enum DocumentEdit: Sendable, Hashable {
    /// Rewrite line `line` (0-based) as the row for `book`, keeping the line's own line end.
    case replace(line: Int, with: Book)
    /// Remove line `line` (0-based) with its line end.
    case delete(line: Int)
    /// Add a row for `book` at the end of the file, in the file's line-end style.
    case append(Book)
}

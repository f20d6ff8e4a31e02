/// On-disk format of the book file.
public enum BookFileFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `bookId|name|author` rows, one per line.
    case text
    /// A JSON document.
    case json

    /// The spelling used in configuration and on the command line.
    public var description: String { rawValue }
}

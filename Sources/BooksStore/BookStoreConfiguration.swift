import BooksCore

/// Where and how a store keeps the books (SwiftData's `DataStoreConfiguration` idea).
public struct BookStoreConfiguration: Sendable, Hashable {
    /// The book file.
    public var path: String
    /// Its format.
    public var format: BookFileFormat
    /// Lines longer than this are bad lines (text format).
    public var lineLimit: Int
    /// Files larger than this are refused.
    public var sizeLimit: Int

    /// Creates a configuration.
    public init(path: String, format: BookFileFormat = .text, lineLimit: Int = BookDocument.defaultLineLimit,
                sizeLimit: Int = FileReader.defaultSizeLimit) {
        self.path = path
        self.format = format
        self.lineLimit = lineLimit
        self.sizeLimit = sizeLimit
    }
}

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
    /// Whether a symbolic link at `path` is followed (read through, its target rewritten) when the
    /// link is owned by the daemon's effective user. Off by default: a link is then refused with
    /// `BookFileError.symlinkRefused` for reading and writing.
    public var allowSymlink: Bool

    /// Creates a configuration.
    public init(
        path: String, format: BookFileFormat = .text, lineLimit: Int = BookDocument.defaultLineLimit,
        sizeLimit: Int = FileReader.defaultSizeLimit, allowSymlink: Bool = false
    ) {
        self.path = path
        self.format = format
        self.lineLimit = lineLimit
        self.sizeLimit = sizeLimit
        self.allowSymlink = allowSymlink
    }
}

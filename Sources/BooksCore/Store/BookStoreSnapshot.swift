/// What a store's fetch found (SwiftData's `DataStoreSnapshot` idea, for the whole file).
public enum BookStoreSnapshot: Sendable {
    /// The file, as the canonical text the document parses, and the identity it had when read.
    case present(canonical: [UInt8], identity: FileIdentity)
    /// No file at the path: no books.
    case missing
    /// The file cannot be used now (not a regular file, unreadable, invalid JSON …).
    case unavailable(BookFileError)
}

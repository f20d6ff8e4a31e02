import BooksCore

/// What comparing the book file with content already held found (`FileReader.compare`).
public enum FileComparison: Sendable {
    /// The file holds exactly the content held.
    case unchanged(identity: FileIdentity)
    /// The file holds the content held changed by this splice (the smallest one).
    case changed(ByteSplice, identity: FileIdentity)
    /// Nothing is at the path.
    case missing
    /// Something is there but could not be read as a file.
    case unavailable(StoreError)
}

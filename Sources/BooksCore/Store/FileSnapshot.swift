/// What reading the book file found.
public enum FileSnapshot: Sendable {
    /// The file exists and was read completely.
    case present(bytes: [UInt8], identity: FileIdentity)
    /// Nothing is at the path.
    case missing
    /// Something is there but could not be read as a file.
    case unavailable(BookFileError)
}

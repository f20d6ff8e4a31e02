/// What comparing the book file with content already held found (`FileReader.compare`).
public enum FileComparison: Sendable {
    /// The file holds exactly the content held.
    case unchanged(identity: FileIdentity)
    /// The file holds the content held changed by this splice (the smallest one).
    case changed(ByteSplice, identity: FileIdentity)
    /// Nothing is at the path.
    case missing
    /// Something is there but could not be read as a file.
    case unavailable(BookFileError)
}

extension FileComparison {
    /// What the comparison found, in a few words: for debug logs.
    public var traceDescription: String {
        switch self {
        case .unchanged(let identity): "unchanged (\(identity.traceDescription))"
        case .changed(let splice, let identity):
            """
            changed at bytes \(splice.range.lowerBound)..<\(splice.range.upperBound) by \
            \(splice.replacement.count) bytes (\(identity.traceDescription))
            """
        case .missing: "missing"
        case .unavailable(let error): "unavailable (\(error))"
        }
    }
}

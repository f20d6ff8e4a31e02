/// The result of moving a document to new file content.
public struct DocumentUpdate: Sendable, Hashable {
    /// How the change set was computed.
    public enum Path: String, Sendable, Hashable {
        /// The bytes were identical: nothing was parsed.
        case unchanged
        /// Only the changed window of lines was parsed.
        case incremental
        /// The whole file was parsed and diffed by id.
        case full
    }

    /// The books that changed.
    public var changes: ChangeSet
    /// The path taken.
    public var path: Path
    /// For `update(to:)`: the old bytes' range that the new bytes' range `newRange` replaced (the
    /// part between the common prefix and suffix; both empty when unchanged).
    public var oldRange: Range<Int> = 0..<0
    /// See `oldRange`.
    public var newRange: Range<Int> = 0..<0
}

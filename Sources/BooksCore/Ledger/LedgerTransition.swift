/// One move of a `BookLedger` to new file content, as saved in the history journal: the byte
/// splice that turned the old content into the new, and the change set it produced (nil when no
/// book changed — a row turned into a bad line, a comment was edited).
///
/// Guarantee: applying `splice` with `BookLedger.replay(_:)` to the context it was taken from
/// yields exactly `applied` again (the context's update is deterministic).
public struct LedgerTransition: Sendable, Hashable {
    /// The change of the content held (its range is in the old content's offsets).
    public var splice: ByteSplice
    /// The change set applied, if the move changed any book.
    public var applied: SequencedChangeSet?

    /// Creates a transition.
    public init(splice: ByteSplice, applied: SequencedChangeSet?) {
        self.splice = splice
        self.applied = applied
    }
}

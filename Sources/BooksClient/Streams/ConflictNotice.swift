import BooksCore

/// A conflict of a merged save on the feed: recorded when a save from a stale editor buffer was
/// merged and two sides changed the same field differently (or one deleted what the other
/// changed), or settled (`booksctl resolve`, ``BookRequests/resolve(_:take:)``). Only feeds that
/// ask for them get these (`conflicts: true`).
public struct ConflictNotice: Sendable, Hashable {
    /// The store's lineage and its seq when the event was sent (the merge's change set when it
    /// was recorded; the settling write's, or the current seq, when it was settled).
    public var epoch: String
    public var seq: UInt64
    /// The conflict as the daemon keeps it (its number for ``BookRequests/resolve(_:take:)``,
    /// both values, who saved, when).
    public var conflict: RecordedConflict
    /// The side it was settled with; nil when it was just recorded and is unsettled.
    public var resolved: ConflictSide?

    /// Creates a notice.
    public init(epoch: String, seq: UInt64, conflict: RecordedConflict, resolved: ConflictSide? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.conflict = conflict
        self.resolved = resolved
    }
}

import BooksCore
import FoundationEssentials

/// One numbered change set of the feed (the client-side view of `SequencedChangeSet`).
public struct FeedChange: Sendable, Hashable {
    /// The lineage.
    public var epoch: String
    /// The sequence number this change brought the daemon to.
    public var seq: UInt64
    /// Who made the change.
    public var source: ChangeSource
    /// When the daemon applied it (millisecond precision; nil if the daemon did not say).
    public var time: Date?
    /// The books that changed.
    public var changes: ChangeSet
    /// Who made it, as far as the daemon knows (nil when the daemon did not say).
    public var actor: ChangeActor?

    /// Creates a change.
    public init(
        epoch: String, seq: UInt64, source: ChangeSource, time: Date? = nil, changes: ChangeSet,
        actor: ChangeActor? = nil
    ) {
        self.epoch = epoch
        self.seq = seq
        self.source = source
        self.time = time
        self.changes = changes
        self.actor = actor
    }
}

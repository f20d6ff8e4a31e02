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
    /// When this change merged a save from a stale buffer (or a client save naming its base)
    /// onto the others' writes: the seq of the version the saver had loaded. `changes` then holds
    /// only the save's real changes (what was kept is not reported deleted and inserted again).
    /// Nil for every other change.
    public var mergedBase: UInt64?
    /// When a file edit without evidence of its base stood as written and undid recent client
    /// writes: their seqs (each can be put back with `booksctl undo`). Empty otherwise.
    public var reverts: [UInt64]

    /// Creates a change.
    public init(
        epoch: String, seq: UInt64, source: ChangeSource, time: Date? = nil, changes: ChangeSet,
        actor: ChangeActor? = nil, mergedBase: UInt64? = nil, reverts: [UInt64] = []
    ) {
        self.epoch = epoch
        self.seq = seq
        self.source = source
        self.time = time
        self.changes = changes
        self.actor = actor
        self.mergedBase = mergedBase
        self.reverts = reverts
    }
}

import BooksCore
import FoundationEssentials

/// What a `MirrorState` reports after applying a feed item: the books that changed in the mirror.
///
/// Guarantees: `changes` is never empty (except for `.resyncRequired`, which reports none); every insert is a book the mirror did not hold, every
/// update has `old` equal to the mirror's previous value, every delete carries the last known values.
public struct MirrorUpdate: Sendable, Hashable {
    /// Why the mirror changed.
    public enum Origin: String, Sendable, Hashable {
        /// The first snapshot, reported as inserts because `initial` was asked.
        case snapshot
        /// A change pushed (or replayed) by the daemon.
        case live
        /// The difference between the mirror and a snapshot sent after `resync-required`
        /// (changes missed while disconnected).
        case resync
        /// A feed without a mirror (`PlainFeedState`) missed changes the daemon could not replay
        /// (`reason`: `history-trimmed`, `different-epoch`, …); `changes` is empty, and the feed
        /// goes on from `seq`.
        case resyncRequired = "resync-required"
    }

    /// The lineage.
    public var epoch: String
    /// The change's seq; for `.snapshot` and `.resync`, the snapshot's seq.
    public var seq: UInt64
    /// Who made the change (`nil` for `.snapshot` and `.resync`: not known).
    public var source: ChangeSource?
    /// When the daemon applied it (`.live` only).
    public var time: Date?
    /// Why.
    public var origin: Origin
    /// The books that changed in the mirror.
    public var changes: ChangeSet
    /// `.resyncRequired`: why the daemon could not replay.
    public var reason: String?
    /// Who made the change, as far as the daemon knows (`.live` only).
    public var actor: ChangeActor?

    /// Creates an update.
    public init(
        epoch: String, seq: UInt64, source: ChangeSource?, time: Date?, origin: Origin, changes: ChangeSet,
        reason: String? = nil, actor: ChangeActor? = nil
    ) {
        self.epoch = epoch
        self.seq = seq
        self.source = source
        self.time = time
        self.origin = origin
        self.changes = changes
        self.reason = reason
        self.actor = actor
    }
}

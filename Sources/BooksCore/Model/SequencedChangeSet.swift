import FoundationEssentials

/// A change set as applied to a context: numbered, dated and attributed.
///
/// `seq` is exactly one more than the `seq` of the change set applied before it in the same
/// `epoch`; a subscriber that has seen `seq` N of epoch E has seen everything up to N.
public struct SequencedChangeSet: Sendable, Hashable, Codable {
    /// The lineage of the state this change belongs to.
    public var epoch: String
    /// The sequence number the context reached by applying this change.
    public var seq: UInt64
    /// Who made the change.
    public var source: ChangeSource
    /// When the change was applied.
    public var time: Date
    /// The books that changed.
    public var changes: ChangeSet
    /// Permanent ids assigned to hand-typed `name|author` rows in this change, if any.
    public var remapped: [IdentifierRemap]
    /// Who made it, as far as known (nil in history written before attribution was kept).
    public var actor: ChangeActor?

    /// Creates a sequenced change set.
    public init(
        epoch: String, seq: UInt64, source: ChangeSource, time: Date,
        changes: ChangeSet, remapped: [IdentifierRemap] = [], actor: ChangeActor? = nil
    ) {
        self.epoch = epoch
        self.seq = seq
        self.source = source
        self.time = time
        self.changes = changes
        self.remapped = remapped
        self.actor = actor
    }
}

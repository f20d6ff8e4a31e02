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
    /// For a save from a stale buffer that was rebased onto the content held: the seq of the
    /// version the saver had loaded (the change set holds only the save's real changes).
    public var mergedBase: UInt64?
    /// For a file edit that undid recent client writes (a save that stands as written): the seqs
    /// of those writes.
    public var reverts: [UInt64]?
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

import FoundationEssentials

/// Everything a `BookLedger` holds, as saved in a history snapshot: enough to rebuild the same
/// context (books, held books, versions, seq, epoch, change log) without the events that built it.
public struct SavedLedger: Sendable, Hashable {
    /// The lineage (see `BookLedger.epoch`).
    public var epoch: String
    /// The number of change sets applied so far.
    public var seq: UInt64
    /// When the last change set was applied.
    public var lastChange: Date?
    /// The file content as last applied.
    public var bytes: [UInt8]
    /// The document's line limit (a different one would classify lines differently).
    public var lineLimit: Int
    /// The first fields of rows judged slips (see `BookDocument.slipIDList()`).
    public var slipIDs: [[UInt8]]
    /// Books held at their last good values while their row is a bad line, by id order.
    public var held: [Book]
    /// Every non-zero book version, by id.
    public var versions: [String: UInt64]
    /// The retained change sets, oldest first.
    public var log: [SequencedChangeSet]

    /// Creates a saved context.
    public init(
        epoch: String, seq: UInt64, lastChange: Date?, bytes: [UInt8], lineLimit: Int, slipIDs: [[UInt8]],
        held: [Book], versions: [String: UInt64], log: [SequencedChangeSet]
    ) {
        self.epoch = epoch
        self.seq = seq
        self.lastChange = lastChange
        self.bytes = bytes
        self.lineLimit = lineLimit
        self.slipIDs = slipIDs
        self.held = held
        self.versions = versions
        self.log = log
    }
}

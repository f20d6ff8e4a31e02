/// The retained history of applied change sets, bounded by `retention`.
///
/// Holds the newest `retention` change sets in seq order; older ones are dropped. A subscriber
/// resuming from seq N can be replayed exactly when N ≥ `oldestReplayableSeq`.
public struct ChangeLog: Sendable {
    /// How many change sets are kept.
    public let retention: Int
    private var entries: [SequencedChangeSet] = []
    private var head = 0  // index of the oldest entry once the buffer is full

    /// Creates an empty log keeping at most `retention` (≥ 0) change sets.
    public init(retention: Int) {
        self.retention = max(0, retention)
    }

    /// The number of change sets held.
    public var count: Int { entries.count }

    /// Appends a change set (its seq must follow the previous one).
    public mutating func append(_ change: SequencedChangeSet) {
        guard retention > 0 else { return }
        if entries.count < retention {
            entries.append(change)
        } else {
            entries[head] = change
            head = (head + 1) % retention
        }
    }

    /// The held change set at `index` (0: the oldest held), `index < count`.
    public subscript(index: Int) -> SequencedChangeSet {
        entries[(head + index) % entries.count]
    }

    /// The seq of the oldest change set held, nil when none is.
    public var oldestSeq: UInt64? { entries.isEmpty ? nil : self[0].seq }

    /// Drops the oldest change sets while `shouldDrop` says so (at least `keeping` stay held).
    /// Returns how many were dropped.
    @discardableResult
    public mutating func trim(keeping: Int = 0, while shouldDrop: (SequencedChangeSet) -> Bool) -> Int {
        var dropped = 0
        while entries.count - dropped > keeping, shouldDrop(self[dropped]) { dropped += 1 }
        guard dropped > 0 else { return 0 }
        let kept = (dropped..<entries.count).map { self[$0] }
        entries = kept
        head = 0
        return dropped
    }

    /// Changes the newest change set held (nothing when none is).
    public mutating func amendLast(_ change: (inout SequencedChangeSet) -> Void) {
        guard !entries.isEmpty else { return }
        let last = (head + entries.count - 1) % entries.count
        change(&entries[last])
    }

    /// The held change sets with `seq > after`, oldest first; nil when some of them were trimmed.
    public func changes(after: UInt64, currentSeq: UInt64) -> [SequencedChangeSet]? {
        if after >= currentSeq { return [] }
        let needed = Int(currentSeq - after)
        guard needed <= entries.count else { return nil }
        var result: [SequencedChangeSet] = []
        result.reserveCapacity(needed)
        let n = entries.count
        for k in (n - needed)..<n { result.append(entries[(head + k) % n]) }
        return result
    }
}

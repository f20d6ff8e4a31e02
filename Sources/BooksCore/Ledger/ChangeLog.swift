import FoundationEssentials

/// The retained history of applied change sets, bounded by `retention` (a count) and, when set,
/// by `maxAge` and `maxBytes`.
///
/// Holds the newest change sets in seq order; older ones are dropped. A subscriber resuming from
/// seq N can be replayed exactly when N ≥ `oldestReplayableSeq`; otherwise `changes(after:)` says
/// so (nil), never hands out a partial list. Appending is amortised O(1).
public struct ChangeLog: Sendable {
    /// How many change sets are kept.
    public let retention: Int
    /// Change sets older than this (seconds before the newest one) are dropped; nil: no age limit.
    public var maxAge: Double?
    /// The oldest change sets are dropped while the kept ones take more than this many bytes
    /// (their books' text and 64 bytes each); nil: no size limit. The newest is always kept.
    public var maxBytes: Int?
    private var entries: [SequencedChangeSet] = []
    private var sizes: [Int] = []
    /// Index in `entries` of the oldest entry kept (entries before it are dropped).
    private var start = 0
    /// The bytes of the entries kept (see `maxBytes`).
    public private(set) var bytes = 0
    /// The seq of the newest held change set that touched each book (`lastChange(of:)` in O(1)
    /// instead of a walk back through every change set held); an id leaves it when that change
    /// set is dropped.
    private var lastSeqByID: [String: UInt64] = [:]

    /// Creates an empty log keeping at most `retention` (≥ 0) change sets.
    public init(retention: Int, maxAge: Double? = nil, maxBytes: Int? = nil) {
        self.retention = max(0, retention)
        self.maxAge = maxAge
        self.maxBytes = maxBytes
    }

    /// The number of change sets held.
    public var count: Int { entries.count - start }

    /// The held change set at `index` (0: the oldest held), `index < count`.
    public subscript(index: Int) -> SequencedChangeSet { entries[start + index] }

    /// The seq of the oldest change set held, nil when none is.
    public var oldestSeq: UInt64? { count == 0 ? nil : self[0].seq }

    /// Appends a change set (its seq must follow the previous one), then drops what the limits
    /// no longer allow.
    public mutating func append(_ change: SequencedChangeSet) {
        guard retention > 0 else { return }
        let size = Self.size(of: change)
        entries.append(change)
        sizes.append(size)
        bytes += size
        indexIDs(change)
        enforceLimits()
    }

    /// Drops the oldest change sets beyond `retention`, `maxAge` (before the newest) and
    /// `maxBytes`; the newest is always kept.
    public mutating func enforceLimits() {
        guard let newest = entries.last else { return }
        let cutoff = maxAge.map { newest.time.addingTimeInterval(-$0) }
        while count > 1 {
            let oldest = entries[start]
            let tooMany = count > retention
            let tooOld = cutoff.map { oldest.time < $0 } ?? false
            let tooBig = maxBytes.map { bytes > $0 } ?? false
            guard tooMany || tooOld || tooBig else { break }
            dropOldest()
        }
        if start > 1024, start * 2 > entries.count {
            entries.removeFirst(start)
            sizes.removeFirst(start)
            start = 0
        }
    }

    /// Drops the oldest change sets while `shouldDrop` says so (at least `keeping` stay held).
    /// Returns how many were dropped.
    @discardableResult
    public mutating func trim(keeping: Int = 0, while shouldDrop: (SequencedChangeSet) -> Bool) -> Int {
        var dropped = 0
        while count > keeping, shouldDrop(entries[start]) {
            dropOldest()
            dropped += 1
        }
        return dropped
    }

    /// Changes the newest change set held (nothing when none is).
    public mutating func amendLast(_ change: (inout SequencedChangeSet) -> Void) {
        guard count > 0 else { return }
        let last = entries.count - 1
        change(&entries[last])
        indexIDs(entries[last])
        bytes -= sizes[last]
        sizes[last] = Self.size(of: entries[last])
        bytes += sizes[last]
    }

    /// The held change sets with `seq > after`, oldest first; nil when some of them were trimmed.
    public func changes(after: UInt64, currentSeq: UInt64) -> [SequencedChangeSet]? {
        if after >= currentSeq { return [] }
        let needed = Int(currentSeq - after)
        guard needed <= count else { return nil }
        return Array(entries[(entries.count - needed)...])
    }

    /// The seq of the newest held change set that touched book `id` (nil: none held did).
    public func lastSeq(of id: String) -> UInt64? { lastSeqByID[id] }

    /// Drops the oldest held change set (and the index entries that pointed at it).
    private mutating func dropOldest() {
        let dropped = entries[start]
        Self.forEachID(in: dropped.changes) { id in
            if lastSeqByID[id] == dropped.seq { lastSeqByID[id] = nil }
        }
        bytes -= sizes[start]
        start += 1
    }

    /// Makes `change` the last change of every book it touches.
    private mutating func indexIDs(_ change: SequencedChangeSet) {
        Self.forEachID(in: change.changes) { lastSeqByID[$0] = change.seq }
    }

    static func forEachID(in changes: ChangeSet, _ body: (String) -> Void) {
        for book in changes.inserted { body(book.id) }
        for update in changes.updated { body(update.new.id) }
        for book in changes.deleted { body(book.id) }
    }

    /// What a change set costs to keep: its books' text and 64 bytes.
    static func size(of change: SequencedChangeSet) -> Int {
        func text(_ book: Book) -> Int { book.id.utf8.count + book.name.utf8.count + book.author.utf8.count + 24 }
        let changes = change.changes
        return 64 + changes.inserted.reduce(0) { $0 + text($1) } + changes.deleted.reduce(0) { $0 + text($1) }
            + changes.updated.reduce(0) { $0 + text($1.old) + text($1.new) }
    }
}

import FoundationEssentials

/// Which change sets of a ``ChangeLog`` a history request (`log`) asks for: all bounds are
/// optional and combine with "and".
///
/// Times are taken as ordered by seq (each change set is stamped when applied): a scan from the
/// newest stops at the first change set older than `sinceTime`.
public struct HistorySelection: Sendable, Hashable {
    /// Only change sets after this seq.
    public var afterSeq: UInt64?
    /// Only change sets applied at or after this time.
    public var sinceTime: Date?
    /// Only change sets up to this seq (inclusive).
    public var untilSeq: UInt64?
    /// Only change sets applied at or before this time.
    public var untilTime: Date?
    /// Only change sets touching one of these book ids (nil: any).
    public var ids: Set<String>?
    /// Only change sets in which a book (before or after the change) matches this filter.
    public var filter: BookFilter
    /// At most this many change sets: the newest of those that match.
    public var limit: Int
    /// A page stops after the change set that takes it to this many books (at least one change
    /// set is returned when any matches).
    public var maxBooks: Int

    /// Creates a selection.
    public init(
        afterSeq: UInt64? = nil, sinceTime: Date? = nil, untilSeq: UInt64? = nil, untilTime: Date? = nil,
        ids: Set<String>? = nil, filter: BookFilter = .all, limit: Int = 1000, maxBooks: Int = 20_000
    ) {
        self.afterSeq = afterSeq
        self.sinceTime = sinceTime
        self.untilSeq = untilSeq
        self.untilTime = untilTime
        self.ids = ids
        self.filter = filter
        self.limit = limit
        self.maxBooks = maxBooks
    }

    /// Whether `change` (within the bounds) matches the ids and the filter.
    func matches(_ change: SequencedChangeSet) -> Bool { matches(change.changes) }

    /// Whether `changes` touch one of the ids and have a book (before or after) the filter
    /// matches (`log --follow` checks the feed's change sets with it, as `log` checks the kept ones).
    public func matches(_ changes: ChangeSet) -> Bool {
        if let ids, !changes.touches(ids) { return false }
        guard !filter.isEmpty else { return true }
        return changes.inserted.contains(where: filter.matches) || changes.deleted.contains(where: filter.matches)
            || changes.updated.contains { filter.matches($0.old) || filter.matches($0.new) }
    }
}

/// The change sets a ``HistorySelection`` chose, oldest first.
public struct HistoryPage: Sendable, Hashable {
    /// The change sets, oldest first.
    public var changes: [SequencedChangeSet]
    /// True when older change sets in the bounds match too (ask again with `untilSeq` below the
    /// first one here).
    public var more: Bool

    /// Creates a page.
    public init(changes: [SequencedChangeSet], more: Bool) {
        self.changes = changes
        self.more = more
    }
}

extension ChangeSet {
    /// Whether a book with one of `ids` is inserted, updated or deleted here.
    public func touches(_ ids: Set<String>) -> Bool {
        inserted.contains { ids.contains($0.id) } || updated.contains { ids.contains($0.new.id) }
            || deleted.contains { ids.contains($0.id) }
    }
}

extension ChangeLog {
    /// The newest change sets that `selection` matches, oldest first. O(change sets scanned):
    /// the scan starts at the newest (or at `untilSeq`) and stops at the bounds.
    public func select(_ selection: HistorySelection) -> HistoryPage {
        var found: [SequencedChangeSet] = []
        var books = 0
        var more = false
        var index = count - 1
        if let until = selection.untilSeq, let oldest = oldestSeq {
            index = until < oldest ? -1 : min(index, Int(until - oldest))
        }
        while index >= 0 {
            let change = self[index]
            index -= 1
            if let after = selection.afterSeq, change.seq <= after { break }
            if let since = selection.sinceTime, change.time < since { break }
            if let until = selection.untilTime, change.time > until { continue }
            guard selection.matches(change) else { continue }
            if found.count >= max(1, selection.limit) || (!found.isEmpty && books >= selection.maxBooks) {
                more = true
                break
            }
            found.append(change)
            books += change.changes.count
        }
        return HistoryPage(changes: found.reversed(), more: more)
    }

    /// The held change set with `seq`, if it is still held.
    public func change(seq: UInt64) -> SequencedChangeSet? {
        guard let oldest = oldestSeq, seq >= oldest, seq - oldest < UInt64(count) else { return nil }
        return self[Int(seq - oldest)]
    }

    /// The seq of the oldest held change set applied at or after `time` (nil when none was).
    public func firstSeq(atOrAfter time: Date) -> UInt64? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low < count ? self[low].seq : nil
    }

    /// The newest held change set that touched book `id`, nil when none of those held did.
    /// O(1): the log keeps each book's last seq (`lastSeq(of:)`); only when the newest change set
    /// was amended to no longer touch the book does it walk back.
    public func lastChange(of id: String) -> SequencedChangeSet? {
        guard let seq = lastSeq(of: id), let indexed = change(seq: seq) else { return nil }
        let ids: Set = [id]
        if indexed.changes.touches(ids) { return indexed }
        var index = count - 1
        while index >= 0 {
            if self[index].changes.touches(ids) { return self[index] }
            index -= 1
        }
        return nil
    }
}

import BooksCore
import BooksProtocol

/// A local copy of the books matching a filter, kept current by feeding it `FeedItem`s.
///
/// A pure value-type state machine (no I/O), the heart of `ResilientSubscription`:
/// - the first snapshot seeds the mirror (reported as inserts only when `emitInitialSnapshot`, and
///   then even when it is empty);
/// - a `change` is applied and reported as it altered the mirror; a change whose seq is ≤ the last
///   seen seq of the same epoch is a replay and ignored (no duplicates);
/// - any later snapshot (after `resync-required`, or a new epoch) is diffed against the mirror and
///   exactly the difference is reported (inserts, updates with old/new, deletes with last values);
/// - heartbeats advance the resume point; `resumePoint` is what to pass as `resume` on reconnect.
/// Changes are normalised against the mirror and `filter`: a re-insert of a known book with the
/// same values, an update to identical values or a delete of an unknown id report nothing; an
/// update leaving the filter reports a delete, one entering it an insert.
public struct MirrorState: Sendable, Hashable {
    /// The books kept (also applied locally, in case the daemon sends more).
    public let filter: BookFilter
    /// Whether the first snapshot is reported as inserts.
    public let emitInitialSnapshot: Bool
    /// The last position seen (epoch and seq); nil before the first snapshot.
    public private(set) var resumePoint: ResumePoint?
    /// True once a snapshot has been applied.
    public private(set) var isSeeded = false
    /// True between `resync-required` and the snapshot that follows it.
    public private(set) var awaitingSnapshot = false
    private var mirror = OrderedBooks()

    /// Creates an empty mirror.
    public init(filter: BookFilter = .all, emitInitialSnapshot: Bool = false) {
        self.filter = filter
        self.emitInitialSnapshot = emitInitialSnapshot
    }

    /// The mirrored books, in file order (books inserted since the last snapshot last).
    public var books: [Book] { mirror.books }

    /// The mirrored books by id.
    public var booksByID: [String: Book] { mirror.byID }

    /// The number of mirrored books.
    public var count: Int { mirror.count }

    /// The mirrored book with `id`.
    public subscript(id: String) -> Book? { mirror[id] }

    /// Applies one feed item; returns what changed in the mirror, or nil when nothing did.
    public mutating func apply(_ item: FeedItem) -> MirrorUpdate? {
        switch item {
        case .snapshot(let snapshot):
            return applySnapshot(snapshot)
        case .change(let change):
            return applyChange(change)
        case .resyncRequired:
            awaitingSnapshot = true
            return nil
        case .heartbeat(let point):
            if let current = resumePoint, current.epoch == point.epoch, point.seq > current.seq, !awaitingSnapshot {
                resumePoint = point
            }
            return nil
        case .shutdown, .subscribed, .conflict:
            return nil
        }
    }

    private mutating func applySnapshot(_ snapshot: FeedSnapshot) -> MirrorUpdate? {
        let fresh = OrderedBooks(filter.isEmpty ? snapshot.books : snapshot.books.filter(filter.matches))
        let wasSeeded = isSeeded
        let previous = mirror
        mirror = fresh
        isSeeded = true
        awaitingSnapshot = false
        resumePoint = ResumePoint(epoch: snapshot.epoch, seq: snapshot.seq)
        let changes: ChangeSet
        let origin: MirrorUpdate.Origin
        if wasSeeded {
            changes = Self.difference(from: previous, to: fresh)
            origin = .resync
        } else {
            guard emitInitialSnapshot else { return nil }
            // Reported even when empty: the consumer learns that the initial state is known.
            return MirrorUpdate(
                epoch: snapshot.epoch, seq: snapshot.seq, source: nil, time: nil, origin: .snapshot,
                changes: ChangeSet(inserted: fresh.books))
        }
        guard !changes.isEmpty else { return nil }
        return MirrorUpdate(
            epoch: snapshot.epoch, seq: snapshot.seq, source: nil, time: nil,
            origin: origin, changes: changes)
    }

    private mutating func applyChange(_ change: FeedChange) -> MirrorUpdate? {
        if let point = resumePoint, point.epoch == change.epoch, change.seq <= point.seq { return nil }
        resumePoint = ResumePoint(epoch: change.epoch, seq: change.seq)
        var result = ChangeSet()
        var removed = Set<String>()
        func put(_ book: Book) {
            if removed.contains(book.id) {
                // Deleted earlier in this same set, then re-added: an update of the last known values.
                removed.remove(book.id)
                if let index = result.deleted.firstIndex(where: { $0.id == book.id }) {
                    let old = result.deleted.remove(at: index)
                    if old != book { result.updated.append(BookUpdate(old: old, new: book)) }
                }
                mirror.upsert(book)
            } else if let old = mirror[book.id] {
                if old != book {
                    result.updated.append(BookUpdate(old: old, new: book))
                    mirror.upsert(book)
                }
            } else {
                result.inserted.append(book)
                mirror.upsert(book)
            }
        }
        func drop(_ id: String) {
            guard !removed.contains(id), let old = mirror[id] else { return }
            removed.insert(id)
            result.deleted.append(old)
        }
        for book in change.changes.deleted { drop(book.id) }
        for update in change.changes.updated {
            if filter.matches(update.new) { put(update.new) } else { drop(update.new.id) }
        }
        for book in change.changes.inserted where filter.matches(book) { put(book) }
        mirror.remove(removed)
        guard !result.isEmpty else { return nil }
        return MirrorUpdate(
            epoch: change.epoch, seq: change.seq, source: change.source, time: change.time,
            origin: .live, changes: result, actor: change.actor)
    }

    /// The changes that turn `old` into `new`: inserts and updates in `new`'s order, deletes in `old`'s.
    static func difference(from old: OrderedBooks, to new: OrderedBooks) -> ChangeSet {
        var changes = ChangeSet()
        for book in new.books {
            if let previous = old[book.id] {
                if previous != book { changes.updated.append(BookUpdate(old: previous, new: book)) }
            } else {
                changes.inserted.append(book)
            }
        }
        for book in old.books where new[book.id] == nil { changes.deleted.append(book) }
        return changes
    }
}

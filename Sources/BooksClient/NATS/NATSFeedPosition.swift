import BooksCore
import BooksProtocol

/// Turns the messages of a store's NATS stream into the socket feed's items, by booksd's own
/// position (`epoch`, `seq`), not by stream sequence: the state machine that gives `--since`,
/// gaps and snapshot markers one meaning on both transports.
///
/// Pure (no I/O). Guarantees, for the messages handed to `apply` in stream order:
/// - a change set at or before the position (same epoch, seq ≤ the position's) is a replay and
///   yields nothing; the next one (seq + 1) is a `.change`;
/// - a change set or snapshot marker that does not follow the position (a later seq of the same
///   epoch: change sets are missing from the stream; another epoch: booksd began a new lineage)
///   yields one `.resyncRequired` (`history-trimmed` or `different-epoch`, as the socket's) before
///   whatever it carries, so a gap is never silent;
/// - a snapshot marker at or before the position, or the first message read without a position
///   (the start of what was asked for, e.g. `--since` the beginning), is no gap and yields nothing;
/// - after `seeded(at:aheadVersions:)` (the books read from the bucket, which booksd updates
///   before the stream), the parts of later change sets that the bucket already showed (a book
///   whose bucket version is ≥ the change's seq) are left out, so nothing is reported twice.
public struct NATSFeedPosition: Sendable, Hashable {
    /// The last position delivered (or resumed after); nil before the first message.
    public private(set) var point: ResumePoint?
    /// Books whose bucket version was ahead of the seeded position: id → version.
    private var ahead: [String: UInt64] = [:]
    private var aheadUntil: UInt64 = 0

    /// A position that resumes after `point` (nil: take the first message as the start).
    public init(after point: ResumePoint? = nil) { self.point = point }

    /// Records that the books of the bucket were taken as the state at `point`; `aheadVersions`
    /// are the versions of the books the bucket already held newer than `point.seq`.
    public mutating func seeded(at point: ResumePoint, aheadVersions: [String: UInt64]) {
        self.point = point
        ahead = aheadVersions
        aheadUntil = aheadVersions.values.max() ?? 0
    }

    /// The feed items for one message of the stream (a `change` or `snapshot` event).
    public mutating func apply(_ event: Event) -> [FeedItem] {
        let isMarker = event.event == .snapshot
        guard event.event == .change || isMarker else { return [] }
        guard let current = point else {
            point = ResumePoint(epoch: event.epoch, seq: event.seq)
            return isMarker ? [] : [FeedItem(event)]
        }
        var items: [FeedItem] = []
        if event.epoch == current.epoch {
            if event.seq <= current.seq { return [] }
            if isMarker || event.seq > current.seq + 1 {
                let at = isMarker ? event.seq : event.seq - 1
                items.append(.resyncRequired(epoch: event.epoch, seq: at, reason: "history-trimmed"))
            }
        } else {
            let at = isMarker || event.seq == 0 ? event.seq : event.seq - 1
            items.append(.resyncRequired(epoch: event.epoch, seq: at, reason: "different-epoch"))
            ahead = [:]
        }
        point = ResumePoint(epoch: event.epoch, seq: event.seq)
        guard !isMarker else { return items }
        items.append(leavingOutWhatTheBucketShowed(FeedItem(event)))
        return items
    }

    /// `item` without the books the seeded bucket already showed at their version (see
    /// `seeded(at:aheadVersions:)`); for a change that `apply` returned before a new seeding.
    public mutating func leavingOutWhatTheBucketShowed(_ item: FeedItem) -> FeedItem {
        guard !ahead.isEmpty, case .change(var change) = item else { return item }
        let seq = change.seq
        defer { if seq >= aheadUntil { ahead = [:] } }
        let ahead = self.ahead
        let shown = { (id: String) in (ahead[id] ?? 0) >= seq }
        change.changes = ChangeSet(
            inserted: change.changes.inserted.filter { !shown($0.id) },
            updated: change.changes.updated.filter { !shown($0.new.id) },
            deleted: change.changes.deleted.filter { !shown($0.id) })
        return .change(change)
    }
}

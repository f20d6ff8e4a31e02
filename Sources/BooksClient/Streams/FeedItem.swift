import BooksCore
import BooksProtocol

/// One item of a change feed, as pushed by the daemon after `subscribe`.
///
/// Order guarantee (from the daemon): a `snapshot` at seq N, then `change`s N+1…; or replayed
/// `change`s after a resume point; or `resyncRequired` immediately followed by a `snapshot`.
public enum FeedItem: Sendable, Hashable {
    /// Every book matching the subscription's filter at `seq`, in file order.
    case snapshot(FeedSnapshot)
    /// One applied change set (already filtered by the daemon).
    case change(FeedChange)
    /// The resume point cannot be served; a `snapshot` follows unless the daemon disconnects.
    case resyncRequired(epoch: String, seq: UInt64, reason: String)
    /// Keep-alive carrying the daemon's current position.
    case heartbeat(ResumePoint)
    /// The daemon is stopping; the connection will close.
    case shutdown(reason: String?)
    /// A feed started without a snapshot (`snapshot: false`) is subscribed at this position:
    /// the changes after it follow. Always the first item of such a feed.
    case subscribed(ResumePoint)
    /// A merged save's conflict was recorded or settled (only on a feed that asked for them:
    /// `conflicts: true`). Carries no change: the change set that merged the save comes before it.
    case conflict(ConflictNotice)

    /// Converts a wire event (missing arrays are treated as empty). A version-2 `subscribed`
    /// event is `.subscribed`. The store events (`store-added`, `store-removed`,
    /// `subscribe-failed`) are no feed items: a feed over several stores reads them as
    /// `StoreFeedItem`s, and a single-store feed never gets them (its connection ends the feed on
    /// its store's removal); this maps them to a heartbeat at the event's position.
    public init(_ event: Event) {
        switch event.event {
        case .snapshot:
            self = .snapshot(FeedSnapshot(epoch: event.epoch, seq: event.seq, books: event.books ?? []))
        case .change:
            self = .change(
                FeedChange(
                    epoch: event.epoch, seq: event.seq, source: event.source ?? .file,
                    time: event.time.flatMap(ISO8601.parse),
                    changes: ChangeSet(
                        inserted: event.inserted ?? [], updated: event.updated ?? [],
                        deleted: event.deleted ?? []),
                    actor: event.actor, mergedBase: event.merged?.base, reverts: event.reverts ?? []))
        case .resyncRequired:
            self = .resyncRequired(epoch: event.epoch, seq: event.seq, reason: event.reason ?? "")
        case .heartbeat:
            self = .heartbeat(ResumePoint(epoch: event.epoch, seq: event.seq))
        case .shutdown:
            self = .shutdown(reason: event.reason)
        case .subscribed:
            self = .subscribed(ResumePoint(epoch: event.epoch, seq: event.seq))
        case .conflict:
            guard let conflict = event.conflict else {
                self = .heartbeat(ResumePoint(epoch: event.epoch, seq: event.seq))
                return
            }
            self = .conflict(
                ConflictNotice(epoch: event.epoch, seq: event.seq, conflict: conflict, resolved: event.resolved))
        case .storeAdded, .storeRemoved, .subscribeFailed:
            self = .heartbeat(ResumePoint(epoch: event.epoch, seq: event.seq))
        }
    }
}

import BooksCore

/// A line the daemon pushes to a subscriber after `subscribe`: `{"event": "…", …}`.
///
/// Order guarantee: after the subscribe reply, a subscriber receives either a `snapshot` at seq N
/// (then changes N+1, N+2, …), or replayed `change`s from its resume point on, or a
/// `resyncRequired` immediately followed by a `snapshot`. Changes arrive in seq order, each once;
/// for a filtered subscription, changes that touch no matching book are skipped (heartbeats still
/// carry the current seq). `change` lines are filtered views: a book that leaves the filter is
/// reported deleted, one that enters it inserted.
///
/// Version 2: every event carries `store`, the store it is about; its `epoch` and `seq` are that
/// store's (sequence numbers and epochs are per store). Version-1 connections get no `store`.
public struct Event: Sendable, Hashable, Codable {
    public var event: Kind
    /// Version 2: the store the event is about (nil on a version-1 connection).
    public var store: String?
    public var epoch: String
    public var seq: UInt64
    /// `change`: who made it.
    public var source: ChangeSource?
    /// `change`: when it was applied (ISO 8601 with milliseconds, UTC).
    public var time: String?
    /// `change`: the books that changed.
    public var inserted: [Book]?
    public var updated: [BookUpdate]?
    public var deleted: [Book]?
    /// `snapshot`: every matching book, in file order.
    public var books: [Book]?
    /// `resyncRequired`, `shutdown`: why.
    public var reason: String?
    /// `snapshot` sent in pages (`"paged":true` on `subscribe`): `true` on every page but the last.
    public var more: Bool?
    /// `change`: a save from a stale buffer, rebased onto the current file: `{"base": seq}`, the
    /// version the saver had loaded (the change holds only the save's real changes).
    public var merged: MergedFrom?
    /// `change`: a file edit that stands as written and undid recent client writes: their seqs.
    public var reverts: [UInt64]?

    /// Where a merged change's save came from.
    public struct MergedFrom: Sendable, Hashable, Codable {
        /// The seq of the version the saver had loaded.
        public var base: UInt64
        /// Creates the marker.
        public init(base: UInt64) { self.base = base }
    }
    /// `change`: who made it, as far as the daemon knows (nil from daemons that did not keep it).
    public var actor: ChangeActor?
    /// `conflict` (only to a subscriber that asked for them): the conflict a merged save recorded,
    /// or the one just settled.
    public var conflict: RecordedConflict?
    /// `conflict`: the side it was settled with; nil when it was just recorded (unsettled).
    public var resolved: ConflictSide?

    public init(
        event: Kind, epoch: String, seq: UInt64, source: ChangeSource? = nil, time: String? = nil,
        inserted: [Book]? = nil, updated: [BookUpdate]? = nil, deleted: [Book]? = nil,
        books: [Book]? = nil, reason: String? = nil, more: Bool? = nil, store: String? = nil,
        actor: ChangeActor? = nil
    ) {
        self.event = event
        self.store = store
        self.epoch = epoch
        self.seq = seq
        self.source = source
        self.time = time
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.books = books
        self.reason = reason
        self.more = more
        self.actor = actor
    }

    /// Event kinds.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The matching books at `seq`.
        case snapshot
        /// One applied change set.
        case change
        /// The resume point cannot be served (other epoch, trimmed history, or this client lagged):
        /// a `snapshot` follows unless the daemon disconnects (`reason: "lagged"`).
        case resyncRequired = "resync-required"
        /// Keep-alive with the current seq.
        case heartbeat
        /// The daemon is stopping; reconnect and resume.
        case shutdown
        /// Version 2, a subscriber of several stores: `store`'s feed starts here, at `epoch`/`seq`
        /// (what the `subscribe` reply says for a single store); its snapshot or replayed changes follow.
        case subscribed
        /// Version 2, a subscriber of several stores: `store` could not be followed (`reason` holds
        /// the error code and message); the other stores' feeds go on.
        case subscribeFailed = "subscribe-failed"
        /// Version 2: a store appeared (a watched folder got a book file); a subscriber of all
        /// stores (`"stores":["*"]`) is then subscribed to it: a `subscribed` event and its snapshot follow.
        case storeAdded = "store-added"
        /// Version 2: a store went away (`reason` says why); no more events come for it.
        case storeRemoved = "store-removed"
        /// A merged save recorded a conflict, or one was settled (`conflict`, `resolved`); sent only
        /// to subscribers that asked for them (`"conflicts":true` on `subscribe`).
        case conflict
    }
}

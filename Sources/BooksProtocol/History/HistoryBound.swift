import BooksCore
import FoundationEssentials

/// A bound of a history request (`since`, `until`, `at`) on the wire: a seq (of `epoch` when
/// given: a cursor), or a time (ISO 8601). Exactly one of `seq` and `time` is set.
public struct HistoryBound: Sendable, Hashable, Codable {
    /// The lineage `seq` belongs to (nil: the store's current one).
    public var epoch: String?
    /// A change set's seq.
    public var seq: UInt64?
    /// An instant, ISO 8601 (`2026-12-01T08:30:00.000Z`).
    public var time: String?

    /// Creates a bound.
    public init(epoch: String? = nil, seq: UInt64? = nil, time: String? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.time = time
    }

    /// The bound a WHEN names.
    public init(_ point: HistoryPoint) {
        switch point {
        case .seq(let seq): self.init(seq: seq)
        case .cursor(let epoch, let seq): self.init(epoch: epoch, seq: seq)
        case .time(let date): self.init(time: ISO8601.format(date))
        }
    }

    /// The bound as a seq of lineage `epoch` or a date; an error text when it is neither, names
    /// another lineage, or holds an unreadable time.
    public func resolved(epoch current: String) -> Result<Resolved, ProtocolError> {
        switch (seq, time) {
        case (.some(let seq), nil):
            if let epoch, epoch != current {
                return .failure(
                    ProtocolError(
                        .invalidArgument,
                        "cursor \(epoch):\(seq) is of another lineage; this store's epoch is \(current) (use a seq or a time)"
                    ))
            }
            return .success(.seq(seq))
        case (nil, .some(let text)):
            guard let date = ISO8601.parse(text) else {
                return .failure(ProtocolError(.invalidArgument, "\"time\" must be ISO 8601, not \(text)"))
            }
            return .success(.time(date))
        default:
            return .failure(ProtocolError(.invalidArgument, "a history bound has exactly one of \"seq\" and \"time\""))
        }
    }

    /// A bound checked against the store's lineage.
    public enum Resolved: Sendable, Hashable {
        case seq(UInt64)
        case time(Date)
    }
}

/// A book's last change, as `blame` reports it.
public struct BlameEntry: Sendable, Hashable, Codable {
    /// The book's id.
    public var id: String
    /// The book now (nil: no longer in the file).
    public var book: Book?
    /// The seq of its last change (its version); 0 when none is known.
    public var seq: UInt64
    /// That change set's time, source and actor, when it is still in the history kept.
    public var time: String?
    public var source: ChangeSource?
    public var actor: ChangeActor?
    /// What that change did to the book: `inserted`, `updated` or `deleted` (nil when not kept).
    public var change: String?

    /// Creates an entry.
    public init(
        id: String, book: Book?, seq: UInt64, time: String? = nil, source: ChangeSource? = nil,
        actor: ChangeActor? = nil, change: String? = nil
    ) {
        self.id = id
        self.book = book
        self.seq = seq
        self.time = time
        self.source = source
        self.actor = actor
        self.change = change
    }
}

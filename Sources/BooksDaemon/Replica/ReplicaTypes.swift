import BooksCore
import BooksProtocol
import FoundationEssentials

/// A book as one side holds it: its values and the version that side gave it (the seq of the
/// change set that last touched it there).
///
/// Kept as bytes (`PackedBook`): a replica holds one per book of the store, twice (the record's
/// entry and the file's row, sharing one buffer when byte for byte the same). Equal when the
/// bytes and the version are (not canonical `String` equivalence).
public struct ReplicaBook: Sendable, Hashable, Codable {
    /// The book's values (new strings of `packed`, made when read).
    public var book: Book {
        get { packed.book }
        set { packed = PackedBook(newValue) }
    }
    /// The book's bytes.
    public internal(set) var packed: PackedBook
    /// Its version on the side it is from.
    public var version: UInt64

    /// A book at `version`.
    public init(book: Book, version: UInt64) {
        self.init(packed: PackedBook(book), version: version)
    }

    /// The book of `packed` at `version` (its buffer shared, not copied).
    init(packed: PackedBook, version: UInt64) {
        self.packed = packed
        self.version = version
    }

    private enum CodingKeys: String, CodingKey {
        case book, version
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let book = try container.decode(Book.self, forKey: .book)
        self.init(book: book, version: try container.decode(UInt64.self, forKey: .version))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(book, forKey: .book)
        try container.encode(version, forKey: .version)
    }
}

/// What a local write makes of one book's row (nil: no row) and the owner state it then derives
/// from.
typealias ReplicaTarget = (book: PackedBook?, base: ReplicaBook?)

/// A local edit of one book the owner accepted at `version`.
public struct SentEdit: Sendable, Hashable, Codable {
    /// The values sent (nil: the book was deleted).
    public var book: Book?
    /// The owner's seq of the change set that holds it.
    public var version: UInt64
}

/// The durable part of a replica's state: the owner position applied and every book's entry.
/// Written before anything it implies is sent, so a restart (even after kill -9) resumes exactly.
public struct ReplicaRecord: Sendable, Hashable, Codable {
    /// This replica's id (in request ids, logs).
    public var replicaID: String
    /// The owner's lineage the entries are at (nil: nothing read from the owner yet).
    public var epoch: String?
    /// The owner's seq the entries are at.
    public var seq: UInt64
    /// Per book id.
    public var entries: [String: ReplicaEntry]

    /// How many updates of the record's log this state includes (nil: none; see
    /// `ReplicaRecordStore`).
    public var generation: UInt64?

    /// A fresh record.
    public init(replicaID: String, epoch: String? = nil, seq: UInt64 = 0, entries: [String: ReplicaEntry] = [:]) {
        self.replicaID = replicaID
        self.epoch = epoch
        self.seq = seq
        self.entries = entries
    }

    /// Takes `update`: its position, and its entries in place of the ones held (a `whole` update
    /// names none: it stands for the record it came from, which is kept instead).
    public mutating func apply(_ update: ReplicaRecordUpdate) {
        epoch = update.epoch
        seq = update.seq
        for id in update.removed { entries[id] = nil }
        for (id, entry) in update.set { entries[id] = entry }
    }
}

/// What changed in a replica's record: its position and the entries of the books whose entry
/// changed (costs what changed, not what the record holds).
public struct ReplicaRecordUpdate: Sendable, Hashable, Codable {
    /// The owner's lineage after the update.
    public var epoch: String?
    /// The owner's seq after the update.
    public var seq: UInt64
    /// Entries set (new or changed).
    public var set: [String: ReplicaEntry]
    /// Entries removed.
    public var removed: [String]
    /// Whether the update changed so much of the record (a first copy, the owner's books read
    /// again) that it names no entries: the whole record is kept as of when it is written
    /// (`ReplicaRecordStore.keep`), not a second copy of most of its entries. Never in the log.
    public var whole = false

    /// An update is `whole` when it changes more entries than this, and at least half the record's.
    public static let wholeFloor = 1000

    private enum CodingKeys: String, CodingKey {
        case epoch, seq, set, removed
    }

    /// An update to position `epoch`/`seq` setting `set` and removing `removed`.
    public init(epoch: String?, seq: UInt64, set: [String: ReplicaEntry] = [:], removed: [String] = []) {
        self.epoch = epoch
        self.seq = seq
        self.set = set
        self.removed = removed
    }

    /// An update to position `epoch`/`seq` that stands for the whole record.
    public static func whole(epoch: String?, seq: UInt64) -> ReplicaRecordUpdate {
        var update = ReplicaRecordUpdate(epoch: epoch, seq: seq)
        update.whole = true
        return update
    }

    /// This update followed by `newer`, as one (whole when either is).
    public func followed(by newer: ReplicaRecordUpdate) -> ReplicaRecordUpdate {
        if whole || newer.whole { return .whole(epoch: newer.epoch, seq: newer.seq) }
        var merged = ReplicaRecordUpdate(epoch: newer.epoch, seq: newer.seq, set: set, removed: [])
        var removedIDs = Set(removed)
        for id in newer.removed {
            merged.set[id] = nil
            removedIDs.insert(id)
        }
        for (id, entry) in newer.set {
            merged.set[id] = entry
            removedIDs.remove(id)
        }
        merged.removed = removedIDs.sorted()
        return merged
    }
}

/// Books to write, as one all-or-nothing write (to the local file or to the owner).
public struct ReplicaWrite: Sendable, Hashable {
    /// Identifies the write in its answer.
    public var token: UInt64
    /// Books to insert with their ids.
    public var inserted: [Book] = []
    /// Books to change, each with the version it must be at (on the side written).
    public var updated: [(book: Book, expected: UInt64)] = []
    /// Books to delete, each with the version it must be at.
    public var deleted: [(id: String, expected: UInt64)] = []
    /// For a send: the owner position its books were edited on when a merge of them with a newer
    /// owner change found a conflict; sent as the `save`'s `base`, so the owner merges it by the
    /// stale-save rules and keeps (and lists) the conflict itself.
    public var base: ResumePoint?

    /// The ids the write touches.
    public var ids: [String] { inserted.map(\.id) + updated.map(\.book.id) + deleted.map(\.id) }
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    public static func == (a: ReplicaWrite, b: ReplicaWrite) -> Bool {
        a.token == b.token && a.inserted == b.inserted && a.updated.map(\.book) == b.updated.map(\.book)
            && a.updated.map(\.expected) == b.updated.map(\.expected) && a.deleted.map(\.id) == b.deleted.map(\.id)
            && a.deleted.map(\.expected) == b.deleted.map(\.expected) && a.base == b.base
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
}

/// How the owner answered a sent edit.
public enum ReplicaSendOutcome: Sendable, Hashable {
    /// Written as the owner's change set `seq`.
    case accepted(seq: UInt64)
    /// Refused because the owner's books moved on (every conflicting book listed).
    case conflicts([BookConflict])
    /// Not answered or refused otherwise (unreachable, timed out, an error): retried later.
    case failed(String)
    /// A send with a `base` the owner's history no longer holds: sent again without it.
    case baseNotKept(String)
}

/// What the replica state machine is told.
public enum ReplicaInput: Sendable {
    /// The local file's books (with the local engine's versions) at its seq `seq`, at start.
    case localLoaded(seq: UInt64, books: [ReplicaBook])
    /// A change set of the local file (hand edits, and the writes the replica made itself); one
    /// at or before the loaded seq is already in the loaded books.
    case localChanged(SequencedChangeSet)
    /// The local write `token` finished.
    case localWriteFinished(token: UInt64, succeeded: Bool)
    /// The owner's books at `seq` of `epoch` (its bucket; change sets before may be missing).
    case ownerSnapshot(epoch: String, seq: UInt64, books: [ReplicaBook])
    /// One change set of the owner's stream.
    case ownerChanged(SequencedChangeSet)
    /// The owner answered (or did not) the sent edit `token`.
    case sendFinished(token: UInt64, ReplicaSendOutcome)
    /// The NATS connection went up or down.
    case connectivity(online: Bool, at: Date)
    /// A periodic retry: failed local writes and sends are tried again.
    case retry
}

/// What the replica state machine asks its shell to do, in order.
public enum ReplicaAction: Sendable, Hashable {
    /// Keep what changed in the record durably (before the actions after it).
    case persist(ReplicaRecordUpdate)
    /// Write to the local file through its engine (the ordinary client-write path).
    case writeLocal(ReplicaWrite)
    /// Send to the owner as a conditional write (`expected` are owner versions).
    case send(ReplicaWrite)
    /// The owner's stream cannot be followed from the position held: read its books again.
    case needSnapshot(reason: String)
    /// A merge found these conflicts (the local side's values stand).
    case conflicts([MergeConflict])
}

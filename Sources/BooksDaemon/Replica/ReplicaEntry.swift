import BooksCore

/// What a replica remembers of one book across restarts (kept in its state directory).
///
/// A value. Stored compactly: a replica's record holds an entry per book of the store, nearly
/// all of them settled (the owner's state is the base, nothing sent), which is kept as one
/// `ReplicaBook`, not three optional slots; an entry's size is that of one book, whatever it
/// holds (`MemoryLayout<ReplicaEntry>.size` is checked by `ReplicaEntryTests`).
public struct ReplicaEntry: Sendable, Hashable, Codable {
    /// The owner's latest state of the book, as read from its stream (nil: not on the owner).
    public var owner: ReplicaBook? {
        get {
            switch storage {
            case .empty: return nil
            case .settled(let book), .owner(let book): return book
            case .other(let other): return other.owner
            }
        }
        set { storage = Storage(owner: newValue, base: base, sent: sent) }
    }

    /// The owner state the local file's row derives from (nil: the file's row was never the
    /// owner's). The file differing from it is a local edit still to reach the owner.
    public var base: ReplicaBook? {
        get {
            switch storage {
            case .empty, .owner: return nil
            case .settled(let book): return book
            case .other(let other): return other.base
            }
        }
        set { storage = Storage(owner: owner, base: newValue, sent: sent) }
    }

    /// A local edit the owner accepted (its values, nil for a delete, and the owner's version)
    /// whose change set the stream has not brought yet.
    public var sent: SentEdit? {
        get {
            guard case .other(let other) = storage else { return nil }
            return other.sent
        }
        set { storage = Storage(owner: owner, base: base, sent: newValue) }
    }

    private var storage: Storage

    /// An empty entry.
    public init(owner: ReplicaBook? = nil, base: ReplicaBook? = nil, sent: SentEdit? = nil) {
        storage = Storage(owner: owner, base: base, sent: sent)
    }

    var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    /// Whether the owner's state is the base (byte for byte, at the same version) and nothing
    /// awaits its change set.
    var isSettled: Bool {
        switch storage {
        case .empty, .settled: return true
        case .owner, .other: return false
        }
    }

    public static func == (a: ReplicaEntry, b: ReplicaEntry) -> Bool {
        a.owner == b.owner && a.base == b.base && a.sent == b.sent
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(owner)
        hasher.combine(base)
        hasher.combine(sent)
    }

    private enum CodingKeys: String, CodingKey {
        /// `settled`: the owner state that is also the base (how `ReplicaRecordEncoder` writes
        /// a settled entry: its book once, not twice).
        case owner, base, sent, settled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let settled = try container.decodeIfPresent(ReplicaBook.self, forKey: .settled) {
            self.init(owner: settled, base: settled)
            return
        }
        self.init(
            owner: try container.decodeIfPresent(ReplicaBook.self, forKey: .owner),
            base: try container.decodeIfPresent(ReplicaBook.self, forKey: .base),
            sent: try container.decodeIfPresent(SentEdit.self, forKey: .sent))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(owner, forKey: .owner)
        try container.encodeIfPresent(base, forKey: .base)
        try container.encodeIfPresent(sent, forKey: .sent)
    }

    /// The common shapes inline (one book), the rest boxed.
    private enum Storage: Sendable {
        case empty
        /// owner == base, byte for byte and at the same version; nothing sent.
        case settled(ReplicaBook)
        /// An owner state the file does not derive from yet (a first copy before its write).
        case owner(ReplicaBook)
        case other(Other)

        init(owner: ReplicaBook?, base: ReplicaBook?, sent: SentEdit?) {
            switch (owner, base, sent) {
            case (nil, nil, nil): self = .empty
            case (.some(let owner), nil, nil): self = .owner(owner)
            case (.some(let owner), .some(let base), nil)
            where owner == base:
                self = .settled(base)
            default: self = .other(Other(owner: owner, base: base, sent: sent))
            }
        }
    }

    /// An entry of another shape (immutable: a change makes a new one).
    private final class Other: Sendable {
        let owner: ReplicaBook?
        let base: ReplicaBook?
        let sent: SentEdit?

        init(owner: ReplicaBook?, base: ReplicaBook?, sent: SentEdit?) {
            self.owner = owner
            self.base = base
            self.sent = sent
        }
    }
}

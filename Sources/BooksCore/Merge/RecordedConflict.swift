import FoundationEssentials

/// A conflict of a merged save as the daemon keeps it until it is settled: the conflict, when and
/// by whom the save was made, and the change set that merged it.
public struct RecordedConflict: Sendable, Hashable, Codable {
    /// The conflict's number (unique per store, rising; `booksctl resolve ID`).
    public var id: Int
    /// The conflict.
    public var conflict: MergeConflict
    /// The seq of the change set that merged the save.
    public var seq: UInt64
    /// The seq of the version the saver's buffer was loaded from.
    public var baseSeq: UInt64
    /// When the save was merged.
    public var time: Date
    /// Who saved, as the editor's lock names them (`user@host pid N`), or for a client's save
    /// with a base its actor (``ChangeActor/summary``, `user program[pid]`); empty when unknown.
    public var who: String

    /// Creates a recorded conflict.
    public init(id: Int, conflict: MergeConflict, seq: UInt64, baseSeq: UInt64, time: Date, who: String) {
        self.id = id
        self.conflict = conflict
        self.seq = seq
        self.baseSeq = baseSeq
        self.time = time
        self.who = who
    }
}

/// Which side of a conflict to take when settling it.
public enum ConflictSide: String, Sendable, Hashable, Codable, CaseIterable {
    /// The saver's value (already in the file).
    case mine
    /// The others' value.
    case theirs
}

extension RecordedConflict {
    /// The book the file should hold once the conflict is settled by taking `side`, given the
    /// book it holds now (`current`, nil when absent): nil means the book is deleted. Field
    /// conflicts change only their field.
    public func settled(taking side: ConflictSide, current: Book?) -> Book? {
        let chosen = side == .mine ? conflict.mine : conflict.theirs
        switch conflict.kind {
        case .deletedByMine, .deletedByTheirs:
            return chosen.map { book in current ?? book }
        case .name:
            guard var book = current, let chosen else { return current }
            book.name = chosen.name
            return book
        case .author:
            guard var book = current, let chosen else { return current }
            book.author = chosen.author
            return book
        }
    }
}

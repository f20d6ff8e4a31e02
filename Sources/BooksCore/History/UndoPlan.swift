/// What undoing some change sets asks of the current books: each book they touched goes back to
/// its state before the oldest of them that touched it — unless a change set not being undone
/// touched it since (then it is refused and left alone, unless forced).
///
/// Built from the ``ChangeLog`` and the current books (pure); the daemon writes it as one
/// conflict-checked, atomic change set.
public struct UndoPlan: Sendable, Hashable {
    /// Books to put back (deleted by the change sets undone, absent now), with their ids.
    public var restored: [Book] = []
    /// Books to change back: the values before, and the version the book is at now.
    public var reverted: [VersionedBook] = []
    /// Books to remove (inserted by the change sets undone): id and the version it is at now.
    public var removed: [(id: String, version: UInt64)] = []
    /// Books left alone: changed again since by a change set not undone.
    public var refused: [Refusal] = []

    /// A book left alone, and why.
    public struct Refusal: Sendable, Hashable {
        /// The book's id.
        public var id: String
        /// The seq of the change set undone that touched it first.
        public var undoneSeq: UInt64
        /// The seq of the newest later change set (not undone) that touched it.
        public var changedAt: UInt64
        /// The book as it is now (nil: not in the file).
        public var current: Book?

        /// `book ID was changed again at seq N (after seq M); --force undoes it anyway`.
        public var message: String {
            "book \(id) was changed again at seq \(changedAt) (after seq \(undoneSeq)); undo --force takes it back anyway"
        }
    }

    /// True when nothing is to be written.
    public var isEmpty: Bool { restored.isEmpty && reverted.isEmpty && removed.isEmpty }

    /// Two plans are equal when they write and refuse the same books.
    public static func == (a: UndoPlan, b: UndoPlan) -> Bool {
        a.restored == b.restored && a.refused == b.refused && a.removed.map(\.id) == b.removed.map(\.id)
            && a.removed.map(\.version) == b.removed.map(\.version) && a.reverted == b.reverted
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(restored)
        hasher.combine(refused)
        hasher.combine(removed.map(\.id))
        hasher.combine(reverted)
    }

    /// Why a plan cannot be made.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// No seq was given.
        case nothingToUndo
        /// A seq is after the current one.
        case future(seq: UInt64, current: UInt64)
        /// A seq is no longer held (older than the oldest change set kept), or 0.
        case notKept(seq: UInt64, oldest: UInt64?)

        public var description: String {
            switch self {
            case .nothingToUndo: return "undo needs at least one seq"
            case .future(let seq, let current):
                return "there is no change set \(seq) yet (the store is at seq \(current))"
            case .notKept(let seq, let oldest):
                let kept = oldest.map { "the oldest kept is seq \($0)" } ?? "no change set is kept"
                return "change set \(seq) is no longer in the history (\(kept))"
            }
        }
    }

    /// The plan to undo `seqs` (any order, duplicates ignored) given `log` and the current books
    /// (`current(id)`, `version(id)`); with `force`, books changed since are taken back too.
    public static func make(
        undoing seqs: [UInt64], log: ChangeLog, currentSeq: UInt64, force: Bool,
        current: (String) -> Book?, version: (String) -> UInt64
    ) throws(Failure) -> UndoPlan {
        let selected = Set(seqs)
        guard let first = selected.min() else { throw .nothingToUndo }
        for seq in selected.sorted() {
            if seq > currentSeq { throw .future(seq: seq, current: currentSeq) }
            if log.change(seq: seq) == nil { throw .notKept(seq: seq, oldest: log.oldestSeq) }
        }
        var order: [String] = []
        var before: [String: (book: Book?, seq: UInt64)] = [:]
        var changedSince: [String: UInt64] = [:]
        var index = Int(first - log.oldestSeq!)
        while index < log.count {
            let change = log[index]
            index += 1
            let undone = selected.contains(change.seq)
            func visit(_ id: String, before value: Book?) {
                if undone {
                    guard before[id] == nil else { return }
                    before[id] = (value, change.seq)
                    order.append(id)
                } else if before[id] != nil {
                    changedSince[id] = change.seq
                }
            }
            for book in change.changes.inserted { visit(book.id, before: nil) }
            for update in change.changes.updated { visit(update.old.id, before: update.old) }
            for book in change.changes.deleted { visit(book.id, before: book) }
        }
        var plan = UndoPlan()
        for id in order {
            guard let (target, seq) = before[id] else { continue }
            let now = current(id)
            if let later = changedSince[id], !force {
                plan.refused.append(Refusal(id: id, undoneSeq: seq, changedAt: later, current: now))
                continue
            }
            switch (now, target) {
            case (nil, nil): break
            case (.some, nil): plan.removed.append((id, version(id)))
            case (nil, .some(let book)): plan.restored.append(book)
            case (.some(let value), .some(let book)):
                if value != book || !value.name.utf8.elementsEqual(book.name.utf8)
                    || !value.author.utf8.elementsEqual(book.author.utf8)
                {
                    plan.reverted.append(VersionedBook(book: book, version: version(id)))
                }
            }
        }
        return plan
    }
}

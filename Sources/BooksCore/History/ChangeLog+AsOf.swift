/// The book list as it was at an earlier seq, rebuilt from the current books by undoing the
/// change sets after it, newest first: O(books + change sets after it), whatever the history's age.
extension ChangeLog {
    /// Why a past list cannot be rebuilt.
    public enum AsOfFailure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The seq is after the current one.
        case future(seq: UInt64, current: UInt64)
        /// Change sets after the seq are no longer held.
        case notKept(seq: UInt64, oldest: UInt64?)

        public var description: String {
            switch self {
            case .future(let seq, let current):
                return "seq \(seq) is in the future (the store is at seq \(current))"
            case .notKept(let seq, let oldest):
                let kept = oldest.map { "seq \($0 - 1) or later" } ?? "only the current list"
                return "the list at seq \(seq) is older than the history kept (it can show \(kept))"
            }
        }
    }

    /// The books at `seq`, given `current` (the books at `currentSeq`, in file order): books
    /// still there keep today's order; books no longer there follow, most recently deleted first.
    public func books(at seq: UInt64, current: [Book], currentSeq: UInt64) throws(AsOfFailure) -> [Book] {
        guard seq <= currentSeq else { throw .future(seq: seq, current: currentSeq) }
        if seq == currentSeq { return current }
        guard let oldest = oldestSeq, oldest <= seq + 1, count > 0, self[count - 1].seq == currentSeq else {
            throw .notKept(seq: seq, oldest: oldestSeq)
        }
        // What the change sets after `seq` touched, as it was at `seq` (nil: not there then);
        // walking back, an older change set's value replaces a newer one's. Only these ids are
        // hashed: an untouched book is taken as it is (O(changes) hashing, one pass over books).
        var then: [String: Book?] = [:]
        var gone: [String] = []
        var index = count - 1
        while index >= 0, self[index].seq > seq {
            let changes = self[index].changes
            index -= 1
            for book in changes.inserted { then[book.id] = .some(nil) }
            for update in changes.updated { then[update.old.id] = .some(update.old) }
            for book in changes.deleted {
                then[book.id] = .some(book)
                gone.append(book.id)
            }
        }
        var result: [Book] = []
        result.reserveCapacity(current.count)
        var placed = Set<String>()
        for book in current {
            guard let value = then[book.id] else {
                result.append(book)
                continue
            }
            if let value, placed.insert(book.id).inserted { result.append(value) }
        }
        for id in gone {
            if let value = then[id] ?? nil, placed.insert(id).inserted { result.append(value) }
        }
        return result
    }
}

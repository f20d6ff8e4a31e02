import BooksCore

/// Recognises file edits that exactly undo a recent client write.
///
/// A program that read `books.txt` before a client write and saves its copy afterwards (a script
/// doing read–modify–write, an editor that does not check the file's time) undoes that write. From
/// the content alone this cannot be told from a person deliberately reverting the write, and the
/// daemon never overwrites a hand edit, so such an edit stands; the reconciler logs a warning
/// naming the books. For a short window after each client write, an edit that restores a written
/// book *exactly* to its value before the write — drops an inserted book, puts back the old
/// values of an updated one, brings back a deleted one — is reported; an edit that changes such a
/// book to anything else ends the watch on it.
///
/// Pure: it inspects change sets and returns the save that would re-apply the undone writes.
public struct RevertedWriteDetector: Sendable {
    struct Protection: Sendable {
        var before: Book?
        var after: Book?
        var until: ContinuousClock.Instant
        var seq: UInt64
    }

    /// How long a client write is protected.
    public var window: Duration
    private var protections: [String: Protection] = [:]
    /// The seqs of the client writes the last `reverted(by:now:)` found undone, in order.
    public private(set) var revertedSeqs: [UInt64] = []

    /// Creates a guard protecting writes for `window`.
    public init(window: Duration = .seconds(10)) {
        self.window = window
    }

    /// True when no write is protected.
    public var isEmpty: Bool { protections.isEmpty }

    /// Records the books a client write changed.
    /// Records the books a client write changed (its change set's `seq`).
    public mutating func record(_ changes: ChangeSet, seq: UInt64 = 0, now: ContinuousClock.Instant = .now) {
        let until = now + window
        for book in changes.inserted {
            protections[book.id] = Protection(before: nil, after: book, until: until, seq: seq)
        }
        for update in changes.updated {
            protections[update.new.id] = Protection(before: update.old, after: update.new, until: until, seq: seq)
        }
        for book in changes.deleted {
            protections[book.id] = Protection(before: book, after: nil, until: until, seq: seq)
        }
    }

    /// The save that re-applies every protected client write that `fileChange` reverts; nil when
    /// it reverts none. Protections the change touches otherwise end; expired ones are dropped.
    public mutating func reverted(by fileChange: ChangeSet, now: ContinuousClock.Instant = .now) -> SaveRequest? {
        protections = protections.filter { $0.value.until > now }
        revertedSeqs = []
        guard !protections.isEmpty else { return nil }
        var request = SaveRequest(assignIDsToNewRows: true)
        var seqs = Set<UInt64>()
        for book in fileChange.deleted {
            guard let p = protections[book.id] else { continue }
            if p.before == nil, let after = p.after, after == book {
                request.inserted.append(
                    .init(temporaryID: book.id, id: book.id, name: after.name, author: after.author))
                seqs.insert(p.seq)
            } else {
                protections[book.id] = nil
            }
        }
        for update in fileChange.updated {
            guard let p = protections[update.new.id] else { continue }
            if let before = p.before, let after = p.after, update.old == after, update.new == before {
                request.updated.append(after)
                seqs.insert(p.seq)
            } else {
                protections[update.new.id] = nil
            }
        }
        for book in fileChange.inserted {
            guard let p = protections[book.id] else { continue }
            if p.after == nil, let before = p.before, before == book {
                request.deleted.append(book.id)
                seqs.insert(p.seq)
            } else {
                protections[book.id] = nil
            }
        }
        revertedSeqs = seqs.sorted()
        return request.isEmpty ? nil : request
    }
}

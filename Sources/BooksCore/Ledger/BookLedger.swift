import FoundationEssentials

/// The daemon's ledger of one store's books: the parsed file, a sequence number, an epoch and a
/// change log — every state the books were in, numbered. (Not the client library's `BooksContext`,
/// a unit of work holding unsaved changes: this holds what was applied.)
///
/// Guarantees:
/// - `seq` rises by exactly one per applied, non-empty change set; `epoch` never changes for the
///   life of a ledger, so `(epoch, seq)` names one state without ambiguity.
/// - A slip of the hand is not a delete: when a book's row turns into a bad line whose first field
///   is still the book's id, the book is *held* at its last good values until the row is fixed
///   (reported as an update if the values changed) or removed (reported as a delete).
/// - Every applied change set is in the change log until `retention` newer ones push it out.
public struct BookLedger: Sendable {
    /// The file as last applied.
    public internal(set) var document: BookDocument
    /// The lineage of this context's states.
    public let epoch: String
    /// The number of change sets applied so far.
    public internal(set) var seq: UInt64 = 0
    /// Books whose row is currently a bad line, at their last good values, by id.
    public internal(set) var held: [String: Book] = [:]
    /// The retained history.
    public internal(set) var log: ChangeLog
    /// When the last change set was applied.
    public internal(set) var lastChange: Date?
    var versions: [String: UInt64] = [:]
    /// Whether every move to new content is kept in `transitions` (for the history journal).
    public var recordsTransitions = false
    /// The moves to new content since the last `takeTransitions()`, oldest first (only while
    /// `recordsTransitions`).
    public internal(set) var transitions: [LedgerTransition] = []

    /// Creates a context whose state at seq 0 is `document`.
    public init(document: BookDocument, epoch: String = UUID().uuidString, retention: Int = 10_000) {
        self.document = document
        self.epoch = epoch
        self.log = ChangeLog(retention: retention)
    }

    /// The number of books (those in the file plus held ones).
    public var bookCount: Int { document.bookCount + held.count }

    /// The book with `id`, from the file or held.
    public func book(id: String) -> Book? {
        document.book(id: id) ?? held[id]
    }

    /// The book's version: the seq of the change set that last inserted or updated it (0 if none
    /// since the context was created).
    public func version(of id: String) -> UInt64 { versions[id] ?? 0 }

    /// Every book, file order first, then held books by id.
    public var books: [Book] {
        var all = document.books
        if !held.isEmpty { all.append(contentsOf: held.values.sorted { $0.id < $1.id }) }
        return all
    }

    /// The change sets a subscriber at `(epoch, seq)` missed, or why it must resync.
    public func replay(fromEpoch epoch: String, seq: UInt64) -> ReplayDecision {
        guard epoch == self.epoch else { return .resyncRequired(reason: "different-epoch") }
        guard seq <= self.seq else { return .resyncRequired(reason: "future-seq") }
        guard let missed = log.changes(after: seq, currentSeq: self.seq) else {
            return .resyncRequired(reason: "history-trimmed")
        }
        return .replay(missed)
    }

    /// Moves the context to new file content. Returns the applied change set, or nil when no book
    /// changed (the content is taken as current either way).
    @discardableResult
    public mutating func apply(
        bytes: [UInt8], source: ChangeSource, time: Date = Date(),
        remapped: [IdentifierRemap] = [], mergedBase: UInt64? = nil, actor: ChangeActor? = nil
    ) -> SequencedChangeSet? {
        let update = document.update(to: bytes)
        let splice =
            recordsTransitions && update.path != .unchanged
            ? ByteSplice(range: update.oldRange, replacement: Array(bytes[update.newRange])) : nil
        return record(
            update.changes, splice: splice, source: source, time: time, remapped: remapped, mergedBase: mergedBase,
            actor: actor)
    }

    /// Moves the context to its file content changed by `splice` (in place: the same result as
    /// `apply(bytes: splice.applied(to: document.bytes), …)` without a second copy of the file).
    @discardableResult
    public mutating func apply(
        splice: ByteSplice, source: ChangeSource, time: Date = Date(),
        remapped: [IdentifierRemap] = [], mergedBase: UInt64? = nil, actor: ChangeActor? = nil
    ) -> SequencedChangeSet? {
        let update = document.update(applying: splice)
        let kept = recordsTransitions && update.path != .unchanged ? splice : nil
        return record(
            update.changes, splice: kept, source: source, time: time, remapped: remapped, mergedBase: mergedBase,
            actor: actor)
    }

    /// Reports the books `ids` as updated although their `id|name|author` did not change: a
    /// member of theirs that the canonical text does not hold (a JSON file's `isbn`) was edited.
    /// Ids not in the document are skipped; nil when none is left.
    @discardableResult
    public mutating func touch(
        ids: [String], source: ChangeSource, time: Date = Date(), actor: ChangeActor? = nil
    ) -> SequencedChangeSet? {
        var seen = Set<String>()
        let updated = ids.compactMap { id -> BookUpdate? in
            guard seen.insert(id).inserted, let book = document.book(id: id) else { return nil }
            return BookUpdate(old: book, new: book)
        }
        // For the journal: no content moved (an empty splice), see `replay(_:)`.
        let splice = recordsTransitions ? ByteSplice(range: 0..<0, replacement: []) : nil
        return record(
            ChangeSet(updated: updated), splice: splice, source: source, time: time, remapped: [], actor: actor)
    }

    /// Sequences and logs the change set of a document update.
    private mutating func record(
        _ documentChanges: ChangeSet, splice: ByteSplice?, source: ChangeSource, time: Date,
        remapped: [IdentifierRemap], mergedBase: UInt64? = nil, actor: ChangeActor?
    ) -> SequencedChangeSet? {
        var changes = documentChanges
        resolveHeldBooks(&changes)
        guard !changes.isEmpty else {
            if let splice { transitions.append(LedgerTransition(splice: splice, applied: nil)) }
            return nil
        }
        seq += 1
        for book in changes.inserted { versions[book.id] = seq }
        for update in changes.updated { versions[update.new.id] = seq }
        for book in changes.deleted { versions[book.id] = nil }
        var applied = SequencedChangeSet(
            epoch: epoch, seq: seq, source: source, time: time,
            changes: changes, remapped: remapped, actor: actor)
        applied.mergedBase = mergedBase
        log.append(applied)
        lastChange = time
        if let splice { transitions.append(LedgerTransition(splice: splice, applied: applied)) }
        return applied
    }

    /// Holds books whose row became a bad line with their id, and releases fixed or removed ones.
    private mutating func resolveHeldBooks(_ changes: inout ChangeSet) {
        guard !changes.deleted.isEmpty || !held.isEmpty else { return }
        let badIDs = document.badLineFirstFields
        var stillHeld = held
        for (id, last) in held {
            if let index = changes.inserted.firstIndex(where: { $0.id == id }) {
                let now = changes.inserted.remove(at: index)
                if now.name != last.name || now.author != last.author || !now.name.utf8.elementsEqual(last.name.utf8)
                    || !now.author.utf8.elementsEqual(last.author.utf8)
                {
                    changes.updated.append(BookUpdate(old: last, new: now))
                }
                stillHeld[id] = nil
            } else if !badIDs.contains(id) {
                changes.deleted.append(last)
                stillHeld[id] = nil
            }
        }
        if !badIDs.isEmpty {
            changes.deleted.removeAll { book in
                guard badIDs.contains(book.id) else { return false }
                stillHeld[book.id] = book
                return true
            }
        }
        held = stillHeld
    }
}

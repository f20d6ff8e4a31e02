import BooksCore
import BooksProtocol
import FoundationEssentials

/// Keeps a local book file a full, hand-editable copy of a store another booksd owns.
///
/// Pure: inputs are the owner's snapshot and change sets, the local file's books and change sets,
/// and the answers to the writes it asked for; its actions (write the local file, send to the
/// owner, persist the record) are carried out by `ReplicaLink`. No I/O, no clock.
///
/// The file is the queue: per book, the record keeps the owner state the file's row derives
/// from (`base`); a row that differs from it is a local edit still to reach the owner, whether
/// it was made a second ago, while offline, or while booksd was down. Guarantees:
/// - Nothing is lost: a local edit stays in the file until the owner holds it (or a merge of it);
///   an owner change is written into the file only merged with the local edit of the same book
///   (``ThreeWayMerge/merge(id:base:mine:theirs:)``), so neither side's change is dropped.
/// - Every owner change set is applied once: it is taken only at seq + 1 of the record's
///   position (a replay is ignored, a gap asks for a snapshot), and the position is persisted
///   with the books it implies before anything is sent.
/// - Sends are conditional on the owner's versions the edit was made against; a retry of a write
///   that landed is refused by the owner (the version moved) and settled when its change set
///   arrives, so an edit reaches the owner once.
/// - The base only advances to an owner state once the file holds it (or a merge containing it),
///   so a crash between any two actions leaves a state a restart settles the same way.
public struct ReplicaStateMachine: Sendable {
    /// The durable state.
    public internal(set) var record: ReplicaRecord
    /// The local file's books and their local versions.
    var file: [String: ReplicaBook] = [:]
    var loaded = false
    var loadedSeq: UInt64 = 0
    var dirty = Set<String>()
    /// The local write in flight: its token and what it makes of each book (not its books: those
    /// went to the engine, and are not kept here a second time while it writes them).
    var localWrite: (token: UInt64, targets: [String: ReplicaTarget])?
    var localWriteFailed = false
    var sending: (write: ReplicaWrite, books: [String: Book?])?
    /// Books the owner refused because it holds newer values: not resent until the stream
    /// brings them (or the next retry).
    var blocked = Set<String>()
    var sendFailed = false
    var nextToken: UInt64 = 1
    /// Whether NATS is connected, and since when it is not.
    public private(set) var online = false
    public private(set) var offlineSince: Date?
    /// The last reason a send failed (nil after a success).
    public internal(set) var lastError: String?
    /// At most this many books per send to the owner.
    let batchLimit: Int
    /// At most this many books per write into the local file. No limit by default: a first copy
    /// is one durable write of the whole snapshot and a large owner change set one write (the
    /// engine's replica path is not bound by a client save's `SaveLimits.maxChanges`); at 1M
    /// books, writes of 10,000 cost a hundred commits of the whole file, of 1,000 a thousand.
    let localBatchLimit: Int
    /// Ids whose entry changed since the last `persist` action.
    var changedEntries = Set<String>()
    /// Ids whose file row differs from the owner state it derives from (kept as entries and
    /// rows change, so nothing per input costs a pass over every book).
    var pending = Set<String>()
    /// Ids whose entry is not settled: the owner's state is not the base, or a sent edit awaits
    /// its change set.
    var unsettled = Set<String>()
    /// How many times a book was looked at by `settle` (for tests: each input must cost the books
    /// it concerns, not a pass over every book).
    var booksReconsidered = 0
    /// Books that need a local write and did not fit in one (or came while one was in flight or
    /// after one failed), oldest first; the next write takes its books from the front.
    var writeQueue = ReplicaWriteQueue()
    /// Local edits to send, inserts apart (a send carries inserts alone, or none), oldest first.
    var insertQueue = ReplicaWriteQueue()
    var sendQueue = ReplicaWriteQueue()
    /// Books whose edit was merged with a newer owner change and found a conflict: the owner seq
    /// of the base the edit was made on (their send names it, see `ReplicaWrite.base`).
    var conflictBases: [String: UInt64] = [:]

    /// A machine continuing `record` (a fresh one on first start).
    public init(record: ReplicaRecord, batchLimit: Int = 1000, localBatchLimit: Int = .max) {
        self.record = record
        self.batchLimit = batchLimit
        self.localBatchLimit = localBatchLimit
        unsettled = Set(record.entries.filter { $0.value.owner != $0.value.base || $0.value.sent != nil }.keys)
    }

    /// Local edits not yet held by the owner.
    public var queuedEdits: Int { loaded ? pending.count : 0 }

    /// Whether the file equals the owner's books as far as the stream was read.
    public var inSync: Bool {
        loaded && record.epoch != nil && pending.isEmpty && localWrite == nil && unsettled.isEmpty
    }

    /// Handles `input` and returns what to do, in order.
    public mutating func handle(_ input: ReplicaInput) -> [ReplicaAction] {
        let position = (record.epoch, record.seq)
        var actions: [ReplicaAction] = []
        switch input {
        case .localLoaded(let seq, let books):
            loadedSeq = seq
            file = [:]
            file.reserveCapacity(books.count)
            for row in books {
                let id = row.packed.id
                if file[id] == nil { setFileRow(id, row.packed, version: row.version) }
            }
            loaded = true
            dirty.formUnion(file.keys)
            dirty.formUnion(record.entries.keys)
            pending = Set(file.keys).union(record.entries.keys).filter(isPending)
        case .localChanged(let change):
            guard change.seq > loadedSeq else { break }
            for book in change.changes.inserted { setFileRow(book, version: change.seq) }
            for update in change.changes.updated { setFileRow(update.new, version: change.seq) }
            for book in change.changes.deleted { file[book.id] = nil }
            let ids =
                change.changes.inserted.map(\.id) + change.changes.updated.map(\.new.id)
                + change.changes.deleted.map(\.id)
            for id in ids {
                refresh(id)
                // A row the write in flight made is settled when that write finishes.
                if let target = localWrite?.targets[id], file[id]?.packed == target.book { continue }
                dirty.insert(id)
            }
        case .localWriteFinished(let token, let succeeded):
            guard let current = localWrite, current.token == token else { break }
            localWrite = nil
            guard succeeded else {
                localWriteFailed = true
                dirty.formUnion(current.targets.keys)
                break
            }
            for (id, target) in current.targets {
                let row = file[id]?.packed
                if row == target.book {
                    updateEntry(id) { $0.base = target.base }
                    // Settled: the row is the owner's state (no merge to send), which did not move.
                    let entry = record.entries[id]
                    if row == target.base?.packed, entry?.owner == target.base, entry?.sent == nil {
                        continue
                    }
                }
                dirty.insert(id)
            }
        case .ownerSnapshot(let epoch, let seq, let books):
            applySnapshot(epoch: epoch, seq: seq, books: books)
        case .ownerChanged(let change):
            if let reason = applyOwner(change) { actions.append(.needSnapshot(reason: reason)) }
        case .sendFinished(let token, let outcome):
            finishSend(token: token, outcome)
        case .connectivity(let up, let time):
            online = up
            if up { offlineSince = nil } else if offlineSince == nil { offlineSince = time }
            if up { sendFailed = false }
        case .retry:
            localWriteFailed = false
            sendFailed = false
            blocked.removeAll()
            dirty.formUnion(pendingCandidates())
        }
        var conflicts: [MergeConflict] = []
        let (local, send) = settle(conflicts: &conflicts)
        if !conflicts.isEmpty { actions.append(.conflicts(conflicts)) }
        if !changedEntries.isEmpty || position != (record.epoch, record.seq) {
            actions.append(.persist(takeUpdate()))
        }
        if let local { actions.append(.writeLocal(local)) }
        if let send { actions.append(.send(send)) }
        return actions
    }

    /// Ids that may have an edit to send (after a retry).
    private func pendingCandidates() -> Set<String> { loaded ? pending : [] }

    /// Sets the file's row of `book.id`. A row byte for byte the owner's state or the base holds
    /// that book's bytes, not a second copy of them: at a million books the file's rows and the
    /// record's books are then one set of buffers.
    mutating func setFileRow(_ book: Book, version: UInt64) {
        let (key, entry) = recordKey(book.id)
        if let base = entry?.base?.packed, base.isIdentical(to: book) {
            file[key] = ReplicaBook(packed: base, version: version)
        } else if let owner = entry?.owner?.packed, owner.isIdentical(to: book) {
            file[key] = ReplicaBook(packed: owner, version: version)
        } else {
            file[key] = ReplicaBook(book: book, version: version)
        }
    }

    /// Sets the file's row of `id` to `packed` (the record's buffer when the same bytes).
    mutating func setFileRow(_ id: String, _ packed: PackedBook, version: UInt64) {
        let (key, entry) = recordKey(id)
        var row = packed
        if let base = entry?.base?.packed, base == packed {
            row = base
        } else if let owner = entry?.owner?.packed, owner == packed {
            row = owner
        }
        file[key] = ReplicaBook(packed: row, version: version)
    }

    /// The record's own key string for `id` (so the file's table keys the same string, not a
    /// second copy from the engine's change set) and its entry.
    private func recordKey(_ id: String) -> (key: String, entry: ReplicaEntry?) {
        guard let index = record.entries.index(forKey: id) else { return (id, nil) }
        let (key, entry) = record.entries[index]
        return (key, entry)
    }

    /// Sets the entry of `id` (an empty one is removed), noting it for the next `persist`.
    mutating func setEntry(_ id: String, _ entry: ReplicaEntry?) {
        let value = entry?.isEmpty == true ? nil : entry
        guard record.entries[id] != value else { return }
        record.entries[id] = value
        changedEntries.insert(id)
        refresh(id)
    }

    /// Changes the entry of `id` (an empty one when there is none) with `body`.
    mutating func updateEntry(_ id: String, _ body: (inout ReplicaEntry) -> Void) {
        var entry = record.entries[id] ?? ReplicaEntry()
        body(&entry)
        setEntry(id, entry)
    }

    /// Brings what is kept of `id` in `pending` and `unsettled` up to date.
    mutating func refresh(_ id: String) {
        if let entry = record.entries[id], entry.owner != entry.base || entry.sent != nil {
            unsettled.insert(id)
        } else {
            unsettled.remove(id)
        }
        if loaded, isPending(id) { pending.insert(id) } else { pending.remove(id) }
    }

    /// What changed in the record since the last call.
    private mutating func takeUpdate() -> ReplicaRecordUpdate {
        let named = changedEntries.count
        if named > ReplicaRecordUpdate.wholeFloor, named * 2 >= record.entries.count {
            changedEntries.removeAll()
            return .whole(epoch: record.epoch, seq: record.seq)
        }
        var update = ReplicaRecordUpdate(epoch: record.epoch, seq: record.seq)
        for id in changedEntries {
            if let entry = record.entries[id] { update.set[id] = entry } else { update.removed.append(id) }
        }
        update.removed.sort()
        changedEntries.removeAll()
        return update
    }

    /// Whether the file's row of `id` differs from the owner state it derives from.
    func isPending(_ id: String) -> Bool {
        let entry = record.entries[id]
        if let sent = entry?.sent { return !(file[id]?.packed).isIdentical(to: sent.book) }
        return file[id]?.packed != entry?.base?.packed
    }
}

extension ReplicaStateMachine {
    /// How the replica stands, for `status` (see `statusLine(ownerBacklog:)`).
    public var statusLine: String { statusLine(ownerBacklog: 0) }

    /// How the replica stands, for `status`: `in sync`, `offline since T`, `behind the owner by N
    /// change set(s)` (`ownerBacklog`: the owner's change sets published but not yet read),
    /// `N edit(s) queued`, `writing the owner's changes`, or `waiting for the owner's books`, with
    /// the owner position applied.
    public func statusLine(ownerBacklog: UInt64) -> String {
        let position = record.epoch.map { "owner \($0):\(record.seq)" } ?? "no owner state yet"
        var parts: [String] = []
        if let since = offlineSince {
            parts.append("offline since \(ISO8601.format(since))")
        } else if record.epoch == nil {
            parts.append("waiting for the owner's books")
        } else if ownerBacklog > 0 {
            parts.append("behind the owner by \(ownerBacklog) change set(s)")
        } else if inSync {
            parts.append("in sync")
        } else if localWrite != nil {
            parts.append("writing the owner's changes into the file")
        } else {
            parts.append("syncing")
        }
        let queued = queuedEdits
        if queued > 0 { parts.append("\(queued) edit(s) queued") }
        if let lastError { parts.append("last send failed: \(lastError)") }
        return parts.joined(separator: ", ") + " (\(position))"
    }
}

extension ReplicaStateMachine {
    /// Whether the file's row of `id` still waits for a local write (in flight, queued, or to be
    /// decided): an owner change set touching it is not in the file yet.
    public func awaitsLocalWrite(_ id: String) -> Bool {
        localWrite?.targets[id] != nil || writeQueue.contains(id) || dirty.contains(id)
    }

    /// Whether no local write is in flight or waiting: the file holds every owner state applied.
    public var fileHoldsOwnerState: Bool { localWrite == nil && writeQueue.count == 0 && dirty.isEmpty }
}

import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// A replica state machine between an in-memory owner (versions, conditional writes, a stream)
/// and an in-memory local file (versions, conditional writes), carrying out its actions at once.
struct ReplicaDriver {
    var machine: ReplicaStateMachine
    /// The owner: books with versions, its seq, and the change sets it published, in order.
    var owner: [String: ReplicaBook] = [:]
    var ownerSeq: UInt64 = 0
    var ownerEpoch = "O"
    var stream: [SequencedChangeSet] = []
    /// How far the replica read the stream.
    var delivered = 0
    /// The local file.
    var local: [String: ReplicaBook] = [:]
    var localSeq: UInt64 = 0
    /// The record as the machine's `persist` updates build it (from the record it started with).
    var persisted: ReplicaRecord?
    /// Every `persist` update, in order.
    var updates: [ReplicaRecordUpdate] = []
    var conflicts: [MergeConflict] = []
    var snapshotsAsked = 0
    /// Sends the owner applies but whose answer is lost (answered `.failed`).
    var loseNextAnswers = 0
    var sendsSeen = 0
    /// The `base` of every send, in order (set for a conflicting merge).
    var sendBases: [ResumePoint?] = []
    /// The local writes the machine asked for.
    var localWritesSeen = 0
    var offline = false

    init(
        owner books: [Book] = [], local localBooks: [Book] = [], record: ReplicaRecord? = nil,
        batchLimit: Int = 1000, localBatchLimit: Int? = nil
    ) {
        let record = record ?? ReplicaRecord(replicaID: "R")
        machine =
            localBatchLimit.map {
                ReplicaStateMachine(record: record, batchLimit: batchLimit, localBatchLimit: $0)
            } ?? ReplicaStateMachine(record: record, batchLimit: batchLimit)  // the machine's own limit
        persisted = machine.record
        if !books.isEmpty { _ = ownerWrite(inserted: books) }
        for book in localBooks {
            localSeq += 1
            local[book.id] = ReplicaBook(book: book, version: localSeq)
        }
    }

    // MARK: Starting

    /// Loads the local file, connects and reads the owner's books (its bucket) at its seq.
    mutating func start() {
        run(.localLoaded(seq: localSeq, books: local.values.sorted { $0.book.id < $1.book.id }))
        run(.connectivity(online: !offline, at: Date(timeIntervalSince1970: 0)))
        snapshot()
    }

    mutating func snapshot() {
        delivered = stream.count
        run(.ownerSnapshot(epoch: ownerEpoch, seq: ownerSeq, books: Array(owner.values)))
    }

    // MARK: The owner

    /// A write on the owner by someone else; published to the stream (not yet delivered).
    @discardableResult
    mutating func ownerWrite(inserted: [Book] = [], updated: [Book] = [], deleted: [String] = []) -> UInt64 {
        ownerSeq += 1
        var changes = ChangeSet()
        for book in inserted {
            owner[book.id] = ReplicaBook(book: book, version: ownerSeq)
            changes.inserted.append(book)
        }
        for book in updated {
            changes.updated.append(BookUpdate(old: owner[book.id]!.book, new: book))
            owner[book.id] = ReplicaBook(book: book, version: ownerSeq)
        }
        for id in deleted {
            changes.deleted.append(owner.removeValue(forKey: id)!.book)
        }
        stream.append(
            SequencedChangeSet(epoch: ownerEpoch, seq: ownerSeq, source: .client, time: Date(), changes: changes))
        return ownerSeq
    }

    /// Delivers the stream's change sets the replica has not read.
    mutating func deliver() {
        while delivered < stream.count {
            delivered += 1
            run(.ownerChanged(stream[delivered - 1]))
        }
    }

    /// Delivers everything and retries until nothing moves (a settled world).
    mutating func settle() {
        for _ in 0..<20 {
            let before = (stream.count, sendsSeen)
            deliver()
            run(.retry)
            deliver()
            if before == (stream.count, sendsSeen) { return }
        }
    }

    // MARK: The local file

    /// A hand edit of the local file (the engine reports it as a change set from the file).
    mutating func handEdit(set books: [Book] = [], delete ids: [String] = []) {
        localSeq += 1
        var changes = ChangeSet()
        for book in books {
            if let old = local[book.id] {
                changes.updated.append(BookUpdate(old: old.book, new: book))
            } else {
                changes.inserted.append(book)
            }
            local[book.id] = ReplicaBook(book: book, version: localSeq)
        }
        for id in ids { changes.deleted.append(local.removeValue(forKey: id)!.book) }
        run(.localChanged(SequencedChangeSet(epoch: "L", seq: localSeq, source: .file, time: Date(), changes: changes)))
    }

    var localBooks: [Book] { local.values.map(\.book).sorted { $0.id < $1.id } }
    var ownerBooks: [Book] { owner.values.map(\.book).sorted { $0.id < $1.id } }

    // MARK: Running the machine

    /// The record as each `whole` persist stands for it (the machine's when it asked), in order.
    private var wholeRecords: [ReplicaRecord] = []

    /// The machine's actions for `input`, noting the record a `whole` persist among them keeps.
    private mutating func handled(_ input: ReplicaInput) -> [ReplicaAction] {
        let actions = machine.handle(input)
        for case .persist(let update) in actions where update.whole { wholeRecords.append(machine.record) }
        return actions
    }

    mutating func run(_ input: ReplicaInput) {
        var queue = handled(input)
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .persist(let update):
                if update.whole { persisted = wholeRecords.removeFirst() } else { persisted?.apply(update) }
                updates.append(update)
            case .conflicts(let found): conflicts.append(contentsOf: found)
            case .needSnapshot: snapshotsAsked += 1
            case .writeLocal(let write):
                localWritesSeen += 1
                let change = applyLocal(write)
                if let change { queue.append(contentsOf: handled(.localChanged(change))) }
                queue.append(contentsOf: handled(.localWriteFinished(token: write.token, succeeded: change != nil)))
            case .send(let write):
                sendsSeen += 1
                sendBases.append(write.base)
                var outcome = applyOwner(write)
                if loseNextAnswers > 0, case .accepted = outcome {
                    loseNextAnswers -= 1
                    outcome = .failed("timed out")
                }
                queue.append(contentsOf: handled(.sendFinished(token: write.token, outcome)))
            }
        }
        #expect(persisted == machine.record, "the persisted updates rebuild the record")
    }

    /// The local engine's write: all or nothing, on the expected local versions.
    private mutating func applyLocal(_ write: ReplicaWrite) -> SequencedChangeSet? {
        guard write.inserted.allSatisfy({ local[$0.id] == nil }),
            write.updated.allSatisfy({ local[$0.book.id]?.version == $0.expected }),
            write.deleted.allSatisfy({ local[$0.id]?.version == $0.expected })
        else { return nil }
        localSeq += 1
        var changes = ChangeSet()
        for book in write.inserted {
            local[book.id] = ReplicaBook(book: book, version: localSeq)
            changes.inserted.append(book)
        }
        for (book, _) in write.updated {
            changes.updated.append(BookUpdate(old: local[book.id]!.book, new: book))
            local[book.id] = ReplicaBook(book: book, version: localSeq)
        }
        for (id, _) in write.deleted { changes.deleted.append(local.removeValue(forKey: id)!.book) }
        return SequencedChangeSet(epoch: "L", seq: localSeq, source: .nats, time: Date(), changes: changes)
    }

    /// The owner's conditional write: all or nothing, every conflict listed.
    private mutating func applyOwner(_ write: ReplicaWrite) -> ReplicaSendOutcome {
        if offline { return .failed("no responders") }
        var conflicts: [BookConflict] = []
        for book in write.inserted where owner[book.id] != nil {
            conflicts.append(conflict(book.id))
        }
        for (book, expected) in write.updated where owner[book.id]?.version != expected {
            conflicts.append(conflict(book.id))
        }
        for (id, expected) in write.deleted where owner[id]?.version != expected {
            conflicts.append(conflict(id))
        }
        guard conflicts.isEmpty else { return .conflicts(conflicts) }
        return .accepted(
            seq: ownerWrite(
                inserted: write.inserted, updated: write.updated.map(\.book), deleted: write.deleted.map(\.id)))
    }

    private func conflict(_ id: String) -> BookConflict {
        BookConflict(id: id, current: owner[id]?.book, currentVersion: owner[id]?.version, message: "moved")
    }
}

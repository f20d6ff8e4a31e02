import BooksCore
import BooksProtocol

/// How the replica machine takes the owner's books and decides what to write where.
extension ReplicaStateMachine {
    /// The owner's books at `seq` of `epoch`: every entry takes its owner state from them. In a
    /// new lineage, an accepted edit awaiting its change set becomes the base (the owner held it).
    mutating func applySnapshot(epoch: String, seq: UInt64, books: [ReplicaBook]) {
        let newLineage = epoch != record.epoch
        if newLineage { conflictBases.removeAll() }
        // Taken book by book: no second table of the owner's books beside the record (nor a set
        // of their ids on a first copy: an id already in the record is then a duplicate).
        let first = record.entries.isEmpty
        var seen = Set<String>(minimumCapacity: first ? 0 : books.count)
        for state in books {
            let id = state.packed.id
            guard first ? record.entries[id] == nil : seen.insert(id).inserted else { continue }
            takeSnapshotState(id, state, newLineage: newLineage)
        }
        for id in record.entries.keys where !first && !seen.contains(id) {
            takeSnapshotState(id, nil, newLineage: newLineage)
        }
        record.epoch = epoch
        record.seq = seq
    }

    /// The owner's snapshot state of `id` (nil: not in it) taken into its entry.
    private mutating func takeSnapshotState(_ id: String, _ state: ReplicaBook?, newLineage: Bool) {
        guard var entry = record.entries[id] else {
            if state != nil {
                setEntry(id, ReplicaEntry(owner: state))
                dirty.insert(id)
                blocked.remove(id)
            }
            return
        }
        if entry.owner != state {
            entry.owner = state
            dirty.insert(id)
            blocked.remove(id)
        }
        if newLineage, let sent = entry.sent {
            entry.base = sent.book.map { ReplicaBook(book: $0, version: sent.version) }
            entry.sent = nil
            dirty.insert(id)
        }
        setEntry(id, entry)
    }

    /// One owner change set; returns why a snapshot is needed when it does not follow the position.
    mutating func applyOwner(_ change: SequencedChangeSet) -> String? {
        guard let epoch = record.epoch else { return "no owner state yet" }
        if change.epoch == epoch, change.seq <= record.seq { return nil }  // a replay
        guard change.epoch == epoch, change.seq == record.seq + 1 else {
            return change.epoch == epoch
                ? "the owner's stream jumps from seq \(record.seq) to \(change.seq)"
                : "the owner began a new lineage (\(change.epoch))"
        }
        let seq = change.seq
        for book in change.changes.inserted { setOwner(book.id, ReplicaBook(book: book, version: seq)) }
        for update in change.changes.updated { setOwner(update.new.id, ReplicaBook(book: update.new, version: seq)) }
        for book in change.changes.deleted { setOwner(book.id, nil) }
        record.seq = seq
        return nil
    }

    private mutating func setOwner(_ id: String, _ state: ReplicaBook?) {
        updateEntry(id) { $0.owner = state }
        dirty.insert(id)
        blocked.remove(id)
    }

    /// The owner's answer to the edit in flight.
    mutating func finishSend(token: UInt64, _ outcome: ReplicaSendOutcome) {
        guard let current = sending, current.write.token == token else { return }
        sending = nil
        dirty.formUnion(current.books.keys)
        switch outcome {
        case .accepted(let seq):
            lastError = nil
            for (id, book) in current.books { updateEntry(id) { $0.sent = SentEdit(book: book, version: seq) } }
        case .conflicts(let conflicts):
            lastError = nil
            blocked.formUnion(conflicts.map(\.id))
            if conflicts.isEmpty { sendFailed = true }
        case .failed(let reason):
            lastError = reason
            sendFailed = true
        case .baseNotKept(let reason):
            lastError = reason
            for id in current.books.keys { conflictBases[id] = nil }
        }
        if case .accepted = outcome { for id in current.books.keys { conflictBases[id] = nil } }
    }

    /// Looks at every dirty book, then picks the next local write and the next send.
    ///
    /// A book that needs a local write joins `writeQueue`; a write takes its books from the
    /// queue's front (looking again at each it takes that was not looked at in this pass), so a
    /// write costs its own books, not a pass over every book still to write.
    mutating func settle(conflicts: inout [MergeConflict]) -> (local: ReplicaWrite?, send: ReplicaWrite?) {
        guard loaded, record.epoch != nil else { return (nil, nil) }
        var toWrite: [String: ReplicaTarget] = [:]
        var toSend: [String] = []
        let looked = dirty
        let order = dirty.sorted()
        for id in order {
            reconsider(id, toWrite: &toWrite, toSend: &toSend, conflicts: &conflicts)
        }
        dirty.removeAll()
        for id in order where toWrite[id] != nil { writeQueue.append(id) }
        var local: ReplicaWrite?
        if localWrite == nil, !localWriteFailed {
            local = takeLocalWrite(fresh: toWrite, looked: looked, toSend: &toSend, conflicts: &conflicts)
        }
        for id in toSend {
            if record.entries[id]?.base == nil { insertQueue.append(id) } else { sendQueue.append(id) }
        }
        var send: ReplicaWrite?
        if sending == nil, online, !sendFailed {
            let ids = takeSendIDs(decided: Set(toSend), looked: looked)
            if !ids.isEmpty { send = makeSend(ids) }
        }
        return (local, send)
    }

    /// Up to `batchLimit` ids from the front of the insert queue, or if none waits there, of the
    /// send queue; an id looked at in this pass is taken only if it was `decided` to be sent.
    private mutating func takeSendIDs(decided: Set<String>, looked: Set<String>) -> [String] {
        var ids: [String] = []
        while ids.count < batchLimit, let id = insertQueue.popFirst() {
            guard decided.contains(id) || (!looked.contains(id) && waitsToBeSent(id)) else { continue }
            if record.entries[id]?.base == nil { ids.append(id) } else { sendQueue.append(id) }
        }
        guard ids.isEmpty else { return ids }
        while ids.count < batchLimit, let id = sendQueue.popFirst() {
            guard decided.contains(id) || (!looked.contains(id) && waitsToBeSent(id)) else { continue }
            if record.entries[id]?.base == nil { insertQueue.append(id) } else { ids.append(id) }
        }
        return ids
    }

    /// Whether `id` is a settled local edit to send (what `reconsider` found when it queued it).
    private func waitsToBeSent(_ id: String) -> Bool {
        let entry = record.entries[id]
        return entry?.sent == nil && entry?.owner == entry?.base && !blocked.contains(id)
            && file[id]?.packed != entry?.base?.packed
    }

    /// Decides one book: settle an accepted edit, write an owner change (merged with a local edit)
    /// into the file, or queue a local edit for sending.
    private mutating func reconsider(
        _ id: String, toWrite: inout [String: ReplicaTarget], toSend: inout [String],
        conflicts: inout [MergeConflict]
    ) {
        booksReconsidered += 1
        var entry = record.entries[id] ?? ReplicaEntry()
        defer { setEntry(id, entry) }
        let fileBook = file[id]?.packed
        if let sent = entry.sent {
            guard record.seq >= sent.version else { return }  // its change set is still to come
            if let owner = entry.owner, owner.version == sent.version {
                entry.base = owner
            } else {
                entry.base = sent.book.map { ReplicaBook(book: $0, version: sent.version) }
            }
            entry.sent = nil
        }
        if entry.owner != entry.base {
            let pending = fileBook != entry.base?.packed
            var target = entry.owner?.packed
            if pending {
                let merged = ThreeWayMerge.merge(
                    id: id, base: entry.base?.book, mine: fileBook?.book, theirs: entry.owner?.book)
                target = merged.book.map(PackedBook.init)
                conflicts.append(contentsOf: merged.conflicts)
                if !merged.conflicts.isEmpty, let from = entry.base?.version { conflictBases[id] = from }
            }
            if target == fileBook {
                entry.base = entry.owner
            } else if localWrite?.targets[id] == nil {
                toWrite[id] = (target, entry.owner)
                return
            } else {
                return
            }
        }
        if fileBook != entry.base?.packed, !blocked.contains(id) { toSend.append(id) }
    }

    /// The next local write: up to `localBatchLimit` books from the front of `writeQueue`, their
    /// targets as decided in this pass (`fresh`), or decided now for a book not looked at in it
    /// (one `looked` at without a target needs no write any more).
    private mutating func takeLocalWrite(
        fresh: [String: ReplicaTarget], looked: Set<String>, toSend: inout [String],
        conflicts: inout [MergeConflict]
    ) -> ReplicaWrite? {
        var taken: [String: ReplicaTarget] = [:]
        if writeQueue.count == fresh.count, fresh.count <= localBatchLimit {
            // Every book waiting was decided in this pass (a first copy): its table is the
            // write's, not copied into a second one.
            taken = fresh
            writeQueue = ReplicaWriteQueue()
        }
        while taken.count < localBatchLimit, let id = writeQueue.popFirst() {
            if let target = fresh[id] {
                taken[id] = target
            } else if !looked.contains(id) {
                var decided: [String: ReplicaTarget] = [:]
                reconsider(id, toWrite: &decided, toSend: &toSend, conflicts: &conflicts)
                if let target = decided[id] { taken[id] = target }
            }
        }
        guard !taken.isEmpty else { return nil }
        var write = ReplicaWrite(token: takeToken())
        for id in taken.keys.sorted() {
            let target = taken[id]!
            switch (file[id], target.book) {
            case (nil, .some(let book)): write.inserted.append(book.book)
            case (.some(let current), .some(let book)): write.updated.append((book.book, current.version))
            case (.some(let current), nil): write.deleted.append((id, current.version))
            case (nil, nil): break
            }
        }
        localWrite = (write.token, taken)
        return write
    }

    /// One send: the inserts alone if any wait (the owner's `insert`, ids kept), else the changes
    /// and deletes (the owner's `save`, all or nothing, every conflict listed).
    private mutating func makeSend(_ ids: [String]) -> ReplicaWrite {
        var write = ReplicaWrite(token: takeToken())
        var books: [String: Book?] = [:]
        let inserts = ids.filter { record.entries[$0]?.base == nil }
        var chosen = inserts.isEmpty ? ids : inserts
        // A conflicting merge goes alone with the books of the same base: the owner merges it.
        let bases = conflictBases
        if inserts.isEmpty, let epoch = record.epoch, let from = ids.lazy.compactMap({ bases[$0] }).first {
            chosen = ids.filter { bases[$0] == from }
            write.base = ResumePoint(epoch: epoch, seq: from)
        }
        for id in chosen {
            guard books.count < batchLimit else {
                dirty.insert(id)
                continue
            }
            let fileBook = file[id]?.book
            let base = record.entries[id]?.base
            switch (base, fileBook) {
            case (nil, .some(let book)): write.inserted.append(book)
            case (.some(let base), .some(let book)): write.updated.append((book, base.version))
            case (.some(let base), nil): write.deleted.append((id, base.version))
            case (nil, nil): continue
            }
            books[id] = fileBook
        }
        dirty.formUnion(Set(ids).subtracting(books.keys))
        sending = (write, books)
        return write
    }

    private mutating func takeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }
}

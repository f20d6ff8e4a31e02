import FoundationEssentials

/// Saving a context and rebuilding it after a restart (the daemon's durable history).
extension BookLedger {
    /// The whole context as a value to save (the document's bytes are shared, not copied).
    public var saved: SavedLedger {
        SavedLedger(
            epoch: epoch, seq: seq, lastChange: lastChange, bytes: document.bytes, lineLimit: document.lineLimit,
            slipIDs: document.slipIDList(), held: held.values.sorted { $0.id < $1.id }, versions: versions,
            log: log.changes(after: seq - UInt64(min(UInt64(log.count), seq)), currentSeq: seq) ?? [])
    }

    /// Rebuilds a saved context: the same books, held books, versions, seq, epoch and (up to
    /// `retention`) change log; nothing is recorded as a transition.
    public init(restoring saved: SavedLedger, retention: Int) {
        let document = BookDocument(parsing: saved.bytes, lineLimit: saved.lineLimit, slipIDs: saved.slipIDs)
        self.init(document: document, epoch: saved.epoch, retention: retention)
        seq = saved.seq
        lastChange = saved.lastChange
        versions = saved.versions
        for book in saved.held { held[book.id] = book }
        for change in saved.log.suffix(max(0, retention)) { log.append(change) }
    }

    /// Applies a saved transition again and checks that it yields the change set it yielded when
    /// it was recorded. Returns false (the context is then unusable) when it does not.
    public mutating func replay(_ transition: LedgerTransition) -> Bool {
        let splice = transition.splice
        guard splice.range.lowerBound >= 0, splice.range.upperBound <= document.bytes.count else { return false }
        let recorded = transition.applied
        if splice.range.isEmpty, splice.replacement.isEmpty, let recorded, recorded.changes.isTouch {
            // A `touch`: books reported as updated with their row unchanged.
            let ids = recorded.changes.updated.map(\.new.id)
            return touch(ids: ids, source: recorded.source, time: recorded.time, actor: recorded.actor) == recorded
        }
        var applied = apply(
            splice: splice, source: recorded?.source ?? .file,
            time: recorded?.time ?? lastChange ?? Date(timeIntervalSinceReferenceDate: 0),
            remapped: recorded?.remapped ?? [], mergedBase: recorded?.mergedBase, actor: recorded?.actor)
        if let reverts = recorded?.reverts, applied != nil {
            markReverts(reverts)
            applied?.reverts = reverts
        }
        return applied == recorded
    }

    /// Bounds the change log by age (seconds before the newest change set) and size, from now
    /// on, dropping what is beyond them already (see ``ChangeLog/enforceLimits()``).
    public mutating func limitHistory(maxAge: Double?, maxBytes: Int?) {
        log.maxAge = maxAge
        log.maxBytes = maxBytes
        log.enforceLimits()
    }

    /// The change set just applied undid the client writes `seqs` (a file edit that stands as
    /// written): its entry in the change log and its recorded transition say so too, so the
    /// history journal keeps it.
    public mutating func markReverts(_ seqs: [UInt64]) {
        log.amendLast { $0.reverts = seqs }
        if let last = transitions.indices.last, transitions[last].applied?.seq == seq {
            transitions[last].applied?.reverts = seqs
        }
    }

    /// The transitions recorded since the last call, oldest first; the list is emptied.
    public mutating func takeTransitions() -> [LedgerTransition] {
        defer { transitions.removeAll() }
        return transitions
    }
}

import BooksCore
import BooksStore
import Dispatch

/// The engine's saved history: what it writes to its `HistoryStore`, and when. Every call runs on
/// the engine's queue, after the actions of an input were carried out — so the journal is written
/// after the broadcast it records, never before (only the published seq is stored first, in memory).
extension BookEngine {
    /// Starts journaling at load: before the file is read when a restored context is continued
    /// (the journal is marked as this run's, durably), after it when the history starts afresh (a
    /// snapshot of the loaded context, before any change can be published). Each acts once.
    func beginHistory(resuming: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let history, !history.isRunning else { return }
        let restored = machine.withLock { $0.resumingHistory }
        if resuming {
            guard restored else { return }
            do {
                try history.resume()
            } catch {
                historyFailed("cannot continue the saved history", error)
                return
            }
        } else {
            writeSnapshot(durably: false)
        }
        machine.withLock { $0.context.recordsTransitions = history.isRunning }
    }

    /// Journals the transitions of the input just handled; writes a snapshot when one is due.
    func persistHistory() {
        guard let history else { return }
        let (transitions, size) = machine.withLock {
            ($0.context.recordsTransitions ? $0.context.takeTransitions() : [], $0.context.document.bytes.count)
        }
        guard history.isRunning else { return }
        persistFileVersions()
        // Content rewritten wholesale (a new file, or the edits of a long down time at start): a
        // snapshot holds it in fewer bytes than its journal record would, at once (else a change
        // already published would be in neither).
        let spliced = transitions.reduce(0) { $0 + $1.splice.replacement.count }
        if spliced > HistoryStore.journalBudgetBytes, spliced > size / 2 {
            writeSnapshot(durably: false)
            return
        }
        do {
            try history.append(transitions, contentBytes: size)
        } catch {
            historyFailed("cannot append to the journal", error)
        }
        // A snapshot that falls due while the daemon starts is owed until it is ready (the journal
        // holds everything meanwhile).
        if history.snapshotDue(contentBytes: size) {
            if historyStarting.load(ordering: .relaxed) {
                snapshotOwed.store(true, ordering: .relaxed)
            } else {
                writeSnapshot(durably: false)
            }
        }
    }

    /// The daemon is ready: creates a history deferred at start (see `EngineHistory`) and writes its
    /// first snapshot, or writes the snapshot owed since the start (after readiness, so it does not
    /// delay it), or a first snapshot if the history could not be started at load.
    public func historyReady() {
        guard historyHandle != nil else { return }
        queue.async { [self] in
            historyStarting.store(false, ordering: .relaxed)
            _ = historyHandle?.createIfDeferred()
            if history?.isRunning != true {
                beginHistory(resuming: false)
            } else if snapshotOwed.exchange(false, ordering: .relaxed) {
                writeSnapshot(durably: false)
            }
        }
    }

    /// Before a change set is handed out: a history still deferred at start (see `EngineHistory`)
    /// is created now with its first snapshot (which already holds that change set), so nothing is
    /// published before a store's first snapshot exists, as when it was written before readiness.
    func createDeferredHistory() {
        guard historyHandle?.createIfDeferred() == true else { return }
        beginHistory(resuming: false)
    }

    /// Writes the whole context as the new snapshot (the document's bytes are not copied).
    func writeSnapshot(durably: Bool, closing: Bool = false) {
        guard let history else { return }
        let saved = machine.withLock { $0.context.saved }
        do {
            try history.writeSnapshot(saved, durably: durably, closing: closing)
            if historyFailing.exchange(false, ordering: .relaxed) {
                logger.notice("saved history: writing works again (snapshot at seq \(saved.seq))")
            }
        } catch {
            historyFailed("cannot write a snapshot", error)
        }
    }

    /// At a clean stop: journals what is left, then a final snapshot and a cleanly closed
    /// journal, synced to disk, so the next start continues this epoch even after a reboot.
    /// A history still deferred (stopped before `historyReady()` ran) is created here: its first
    /// snapshot is the final one.
    public func closeHistory() {
        guard historyHandle != nil else { return }
        queue.sync {
            if historyHandle?.createIfDeferred() == true {
                writeSnapshot(durably: true, closing: true)
                return
            }
            persistHistory()
            guard history?.isRunning == true else { return }
            writeSnapshot(durably: true, closing: true)
            machine.withLock { $0.context.recordsTransitions = false }
        }
    }

    /// After ``closeHistory()`` of a removed store: closes the history's descriptors (its locked
    /// state directory and its journal), so a folder whose files come and go does not keep them.
    public func releaseHistory() {
        guard historyHandle != nil else { return }
        queue.sync { historyHandle?.release() }
    }

    private func historyFailed(_ what: String, _ error: any Error) {
        guard !historyFailing.exchange(true, ordering: .relaxed) else { return }
        logger.warning(
            "saved history: \(what): \(error); subscribers will resync after the next restart")
    }
}

import BooksCore
import BooksStore
import Glibc

extension Daemon {
    /// Opens the state directory and restores the saved history; logs which epoch the daemon
    /// continues, or why it begins a new one. Never fails: without a usable directory the daemon
    /// runs without saved history (a new epoch at every start), and says so.
    func openHistory() -> (HistoryStore?, BookContext?) {
        let path = configuration.filePath
        guard let directory = configuration.effectiveStateDirectory() else {
            logger.info("no state directory (state_directory = none): a new epoch at every start", ["BOOKS_FILE": path])
            return (nil, nil)
        }
        let history: HistoryStore
        do {
            history = try HistoryStore(
                directory: directory, fileKey: HistoryStore.fileKey(bookPath: path, format: configuration.format),
                replayBudget: Self.testReplayBudget ?? HistoryStore.replayBudgetBytes)
        } catch {
            logger.warning(
                "the state directory cannot be used: \(error); history is not kept (a new epoch at every start)",
                ["BOOKS_FILE": path])
            return (nil, nil)
        }
        switch history.restore(lineLimit: configuration.maxLineBytes, retention: configuration.changeLogRetention) {
        case .restored(let restored):
            logger.notice(
                """
                saved history restored from \(directory): epoch \(restored.context.epoch), seq \
                \(restored.context.seq) (snapshot at seq \(restored.snapshotSeq), \(restored.replayed) journal \
                record(s) replayed)
                """,
                ["BOOKS_FILE": path, "BOOKS_EPOCH": restored.context.epoch, "BOOKS_SEQ": "\(restored.context.seq)"])
            return (history, restored.context)
        case .newEpoch(let reason):
            let first = reason == HistoryRecovery.noSavedHistory
            logger.log(
                first ? .info : .warning, "new epoch: \(reason) (state directory \(directory))", ["BOOKS_FILE": path])
            return (history, nil)
        }
    }

    /// For tests only (docs/RELIABILITY.md, "Power cuts"): `BOOKSD_TEST_REPLAY_BUDGET_BYTES` lowers
    /// the replay budget that makes a snapshot due, so that a small file gets snapshots between
    /// edits. Not a setting: nothing else reads it, and it is ignored unless a positive integer.
    static var testReplayBudget: Int? {
        guard let value = getenv("BOOKSD_TEST_REPLAY_BUDGET_BYTES"), let bytes = Int(String(cString: value)),
            bytes > 0
        else { return nil }
        return bytes
    }
}

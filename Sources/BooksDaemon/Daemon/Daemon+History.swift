import BooksCore
import BooksStore

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
                directory: directory, fileKey: HistoryStore.fileKey(bookPath: path, format: configuration.format))
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
}

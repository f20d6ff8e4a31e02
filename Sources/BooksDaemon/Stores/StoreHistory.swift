import BooksCore
import BooksStore
import Glibc

/// Opening a store's saved history (issue 12), one directory per store.
enum StoreHistory {
    /// Opens the state directory of `spec` and restores its saved history; logs which epoch the
    /// store continues, or why it begins a new one. Never fails: without a usable directory the
    /// store runs without saved history (a new epoch at every start), and says so.
    static func open(
        spec: StoreSpec, configuration: DaemonConfiguration, logger: Logger
    ) -> (HistoryStore?, BookContext?) {
        let path = spec.path
        let fields = ["BOOKS_FILE": path, "BOOKS_STORE": spec.name.rawValue]
        guard let directory = configuration.stateDirectory(for: spec) else {
            logger.info("no state directory (state_directory = none): a new epoch at every start", fields)
            return (nil, nil)
        }
        let history: HistoryStore
        do {
            if let parent = configuration.sharedStateDirectory(), mkdir(parent, 0o700) != 0, errno != EEXIST {
                throw HistoryStoreError.system(operation: "mkdir", path: parent, errno: errno)
            }
            history = try HistoryStore(
                directory: directory, fileKey: HistoryStore.fileKey(bookPath: path, format: spec.format),
                replayBudget: Daemon.testReplayBudget ?? HistoryStore.replayBudgetBytes)
        } catch {
            logger.warning(
                "the state directory cannot be used: \(error); history is not kept (a new epoch at every start)",
                fields)
            return (nil, nil)
        }
        switch history.restore(lineLimit: configuration.maxLineBytes, retention: configuration.changeLogRetention) {
        case .restored(let restored):
            var restoredFields = fields
            restoredFields["BOOKS_EPOCH"] = restored.context.epoch
            restoredFields["BOOKS_SEQ"] = "\(restored.context.seq)"
            logger.notice(
                """
                saved history restored from \(directory): epoch \(restored.context.epoch), seq \
                \(restored.context.seq) (snapshot at seq \(restored.snapshotSeq), \(restored.replayed) journal \
                record(s) replayed)
                """,
                restoredFields)
            return (history, restored.context)
        case .newEpoch(let reason):
            let first = reason == HistoryRecovery.noSavedHistory
            logger.log(first ? .info : .warning, "new epoch: \(reason) (state directory \(directory))", fields)
            return (history, nil)
        }
    }
}

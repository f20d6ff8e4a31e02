import BooksCore
import BooksStore
import Glibc

/// Opening a store's saved history, one directory per store.
enum StoreHistory {
    /// Opens the state directory of `spec` and restores its saved history; logs which epoch the
    /// store continues, or why it begins a new one. Never fails: without a usable directory the
    /// store runs without saved history (a new epoch at every start), and says so.
    ///
    /// When the directory does not exist there is nothing to restore: its creation is deferred to
    /// the engine's queue after readiness (`EngineHistory`), so a first start of many stores does
    /// not wait for the disk to create thousands of files before it serves.
    static func open(
        spec: StoreSpec, configuration: DaemonConfiguration, logger daemonLogger: Logger
    ) -> (EngineHistory?, BookLedger?) {
        let logger = daemonLogger.bound(["BOOKS_FILE": spec.path, "BOOKS_STORE": spec.name.rawValue])
        guard var usual = configuration.stateDirectory(for: spec) else {
            logger.info("no state directory (state_directory = none): a new epoch at every start")
            return (nil, nil)
        }
        if configuration.sharedStateDirectory() == nil {
            // Beside the book file, where another user may hold the usual name (a sticky folder).
            let location = StateDirectoryLocation.resolve(usual)
            usual = location.path
            if let note = location.note { logger.warning(note) }
        }
        let directory = usual
        var status = stat()
        if lstat(directory, &status) != 0, errno == ENOENT {
            logger.info("new epoch: \(HistoryRecovery.noSavedHistory) (state directory \(directory))")
            let create: @Sendable () -> HistoryStore? = {
                Self.create(directory: directory, spec: spec, configuration: configuration, logger: logger)
            }
            return (EngineHistory(creating: create), nil)
        }
        guard let history = create(directory: directory, spec: spec, configuration: configuration, logger: logger)
        else { return (nil, nil) }
        switch history.restore(lineLimit: configuration.maxLineBytes, retention: configuration.changeLogRetention) {
        case .restored(let restored):
            logger.notice(
                """
                saved history restored from \(directory): epoch \(restored.context.epoch), seq \
                \(restored.context.seq) (snapshot at seq \(restored.snapshotSeq), \(restored.replayed) journal \
                record(s) replayed)
                """,
                ["BOOKS_EPOCH": restored.context.epoch, "BOOKS_SEQ": "\(restored.context.seq)"])
            return (EngineHistory(history), restored.context)
        case .newEpoch(let reason):
            let first = reason == HistoryRecovery.noSavedHistory
            logger.log(first ? .info : .warning, "new epoch: \(reason) (state directory \(directory))")
            return (EngineHistory(history), nil)
        }
    }

    /// Whether `spec`'s file has a saved history: its own directory beside it, or (with a shared
    /// state directory, one per store name) a snapshot that names this file. Cheap: reads at most
    /// the snapshot's first 64 KiB. Used to choose among files of one store name (`--dir`).
    static func exists(for spec: StoreSpec, configuration: DaemonConfiguration) -> Bool {
        guard let directory = configuration.stateDirectory(for: spec) else { return false }
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return false }
        guard configuration.sharedStateDirectory() != nil else { return true }
        let fd = Glibc.open(directory + "/snapshot", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 1 << 16)
        let count = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        let key = Array(HistoryStore.fileKey(bookPath: spec.path, format: spec.format).utf8)
        return head[..<count].firstRange(of: key) != nil
    }

    /// Opens (creating if needed) the state directory `directory` of `spec`; nil, logged (on
    /// `logger`, the store's fields bound), when it cannot be used.
    private static func create(
        directory: String, spec: StoreSpec, configuration: DaemonConfiguration, logger: Logger
    ) -> HistoryStore? {
        do {
            if let parent = configuration.sharedStateDirectory(), mkdir(parent, 0o700) != 0, errno != EEXIST {
                throw HistoryStoreError.system(operation: "mkdir", path: parent, errno: errno)
            }
            return try HistoryStore(
                directory: directory, fileKey: HistoryStore.fileKey(bookPath: spec.path, format: spec.format),
                replayBudget: Daemon.testReplayBudget ?? HistoryStore.replayBudgetBytes,
                servedMark: ServedMarkAttribute(bookPath: spec.path))
        } catch {
            logger.warning(
                "the state directory cannot be used: \(error); history is not kept (a new epoch at every start)")
            return nil
        }
    }
}

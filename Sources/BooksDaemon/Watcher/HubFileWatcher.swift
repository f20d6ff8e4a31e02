import BooksPlatform

/// A ``FileWatcher`` for one file on a shared ``InotifyHub``: the directory's single watch,
/// filtered on the exact file name (``InotifyEventClassifier``): the inotify watcher booksd runs.
///
/// Beyond the ``FileWatcher`` contract: the handler runs on the hub's thread, shared by every
/// store, so it must only post work (``deliversOnSharedThread`` is true; `BookEngine` then
/// queues events instead of handling them inline).
public final class HubFileWatcher: FileWatcher {
    /// The file being watched, as given.
    public let path: String
    /// Always ``WatchMode/inotify``.
    public var mode: WatchMode { .inotify }
    /// The handler runs on the hub's thread, shared with other watchers.
    public var deliversOnSharedThread: Bool { true }

    private let hub: InotifyHub
    private let target: WatchedPath
    private let registration = Locked<UInt64?>(nil)

    init(hub: InotifyHub, path: String) throws(FileWatcherError) {
        self.hub = hub
        self.path = path
        self.target = try WatchedPath(path)
    }

    /// Registers on the hub; returns once the directory is watched.
    public func start(handler: @escaping @Sendable (FileWatchEvent) -> Void) throws(FileWatcherError) {
        guard registration.withLock({ $0 }) == nil else { throw .alreadyStarted }
        let directory = target.directory
        let name = target.name
        let id = try hub.register(directory: directory, handler: .file(handler)) { id, routes in
            routes.addFile(id, directory: directory, name: name)
        }
        registration.withLock { $0 = id }
    }

    /// Unregisters; after it returns the handler is not called again.
    public func stop() {
        guard let id = registration.withLock({ $0.take() }) else { return }
        hub.remove(id)
    }

    /// The hub's thread is alive and this watcher is registered.
    public var isAlive: Bool { registration.withLock { $0 } != nil && hub.isAlive }

    deinit { stop() }
}

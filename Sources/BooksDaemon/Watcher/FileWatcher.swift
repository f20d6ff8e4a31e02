/// Watches one file path and reports ``FileWatchEvent``s to a handler.
///
/// Contract shared by every implementation:
/// - ``start(handler:)`` returns only once watching is established: any change completed after it
///   returns is reported. It throws a ``FileWatcherError`` (and delivers nothing) otherwise.
/// - The handler is called serially (never concurrently with itself) on the watcher's own
///   dedicated thread, never on the Swift concurrency pool. It should return quickly; hand work off.
/// - After ``stop()`` returns, the handler is not called again and the watcher's thread has exited
///   (when `stop()` is called from inside the handler, the thread exits right after the handler
///   returns). `stop()` is idempotent; a stopped watcher may be started again.
public protocol FileWatcher: AnyObject, Sendable {
    /// How this watcher observes the file.
    var mode: WatchMode { get }
    /// Starts watching and delivering events to `handler`.
    func start(handler: @escaping @Sendable (FileWatchEvent) -> Void) throws(FileWatcherError)
    /// Stops watching promptly (well under a second) and waits for the watcher thread to exit.
    func stop()
    /// Whether the watcher's thread is running and went round its loop recently (it wakes at
    /// least every second for inotify, every poll interval when polling). False before `start`,
    /// after `stop`, and when the thread is stuck or gone. Used by the daemon's watchdog.
    var isAlive: Bool { get }
    /// Whether the handler runs on a thread shared with other watchers (``HubFileWatcher``), so
    /// it must only post work, never handle it inline.
    var deliversOnSharedThread: Bool { get }
}

extension FileWatcher {
    /// Default for watchers without a thread of their own (e.g. test doubles): always alive.
    public var isAlive: Bool { true }
    /// Default: the watcher has a thread of its own.
    public var deliversOnSharedThread: Bool { false }
}

import BooksPlatform
import Glibc
import Synchronization

/// Watches one file by `stat`ing it at a fixed interval on a dedicated thread: for network
/// filesystems (NFS, SMB, …) where inotify does not see changes made by other hosts.
///
/// Guarantees, beyond the ``FileWatcher`` contract:
/// - Emits ``FileWatchEvent/contentMayHaveChanged`` when size, mtime, ctime (nanoseconds), inode
///   or device differ from the previous poll, ``FileWatchEvent/removed`` when the file
///   disappears and ``FileWatchEvent/created`` when it appears. The first poll compares against
///   the state seen by ``start(handler:)``, so nothing is emitted for the initial state.
/// - Changes are seen within one interval; several edits within one interval collapse into one
///   event, and a write still in progress can be reported (re-read again on the next event).
/// - ``stop()`` wakes the thread immediately (it waits on a pipe, not in `sleep`).
///
/// Limitation: NFS clients cache attributes (`actimeo`), which can delay detection beyond the
/// interval; a change that keeps size and both timestamps identical is invisible.
public final class PollingFileWatcher: FileWatcher {
    /// The file being watched, as given to ``init(path:intervalSeconds:)``.
    public let path: String
    /// Seconds between two `stat` calls.
    public let intervalSeconds: Double
    /// ``WatchMode/polling(intervalSeconds:)``.
    public var mode: WatchMode { .polling(intervalSeconds: intervalSeconds) }

    private let target: WatchedPath
    private let running = Locked<Run?>(nil)

    /// Creates a watcher polling `path` every `intervalSeconds` (clamped to at least 10 ms).
    public init(path: String, intervalSeconds: Double = 2) throws(FileWatcherError) {
        self.path = path
        self.intervalSeconds = max(intervalSeconds, 0.01)
        self.target = try WatchedPath(path)
    }

    /// Takes the initial snapshot and starts the polling thread.
    public func start(handler: @escaping @Sendable (FileWatchEvent) -> Void) throws(FileWatcherError) {
        try running.withLock { (current: inout Run?) throws(FileWatcherError) in
            guard current == nil else { throw .alreadyStarted }
            let wake = try WakePipe.make()
            let run = Run(wake: wake)
            let path = target.path
            let milliseconds = Int32(min(intervalSeconds * 1000, Double(Int32.max)))
            let initial = PolledFileState.take(path)
            do throws(DedicatedThreadError) {
                let thread = try DedicatedThread.start(name: "booksd-poll") {
                    var previous = initial
                    while !run.isStopRequested {
                        run.liveness.tick()
                        if wake.wait(milliseconds: milliseconds) {
                            wake.drain()
                            continue
                        }  // woken: re-check stop
                        let current = PolledFileState.take(path)
                        if let event = PolledFileState.event(from: previous, to: current), !run.isStopRequested {
                            handler(event)
                        }
                        previous = current
                    }
                    run.liveness.markExited()
                    wake.close()
                }
                run.thread.withLock { $0 = thread }
            } catch {
                wake.close()
                throw .threadStartFailed(error)
            }
            current = run
        }
    }

    /// Stops promptly and waits for the polling thread to exit (see ``FileWatcher/stop()``).
    public func stop() {
        guard let run = running.withLock({ $0.take() }) else { return }
        run.stopRequested.store(true, ordering: .sequentiallyConsistent)
        run.wake.wake()
        run.thread.withLock { $0 }?.join()
    }

    /// The thread went round its loop within two poll intervals plus 10 s.
    public var isAlive: Bool {
        let bound = Int64(intervalSeconds * 2000) + 10_000
        return running.withLock { $0 }?.liveness.isAlive(withinMilliseconds: bound) ?? false
    }

    deinit { stop() }

    /// State shared between the owner and the polling thread.
    ///
    /// Sendable: all stored properties are immutable and Sendable.
    final class Run: Sendable {
        let stopRequested = Atomic<Bool>(false)
        let wake: WakePipe
        let thread = Locked<DedicatedThread?>(nil)
        let liveness = LoopLiveness()
        init(wake: WakePipe) { self.wake = wake }
        var isStopRequested: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }
    }
}

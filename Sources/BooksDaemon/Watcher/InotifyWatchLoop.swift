import CInotifyTools
import Glibc

/// The body of the ``InotifyFileWatcher`` thread: owns libinotifytools from initialisation to
/// cleanup. Runs on that thread only.
struct InotifyWatchLoop: ~Copyable {
    let target: WatchedPath
    let session: InotifyFileWatcher.Session
    let handler: @Sendable (FileWatchEvent) -> Void

    private var library = InotifyToolsLibrary()
    private var wakeWatch: Int32 = -1
    /// The directory's watch descriptor, or -1 while the watch is lost.
    private var directoryWatch: Int32 = -1
    private var nextRetry: timespec = timespec()

    /// Retry period for re-adding a lost directory watch.
    static let retrySeconds = 1

    init(
        target: WatchedPath, session: InotifyFileWatcher.Session,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) {
        self.target = target
        self.session = session
        self.handler = handler
    }

    private mutating func openLibrary() throws(FileWatcherError) {
        try library.open()
        let wakePath = "/proc/self/fd/\(session.wake.readEnd)"
        do {
            wakeWatch = try library.addWatch(path: wakePath, mask: UInt32(IN_MODIFY))
        } catch {
            // Waking is an optimisation: without it stop() takes up to one poll period.
            wakeWatch = -1
        }
    }

    private mutating func addDirectoryWatch() throws(FileWatcherError) {
        directoryWatch = try library.addWatch(path: target.directory, mask: InotifyEventClassifier.directoryMask)
    }

    mutating func run() {
        do {
            try openLibrary()
            try addDirectoryWatch()
        } catch {
            library.close()
            session.startupError.withLock { $0 = error }
            _ = session.ready.signal()
            return
        }
        _ = session.ready.signal()
        session.go.wait()

        while !session.isStopRequested {
            session.liveness.tick()
            if directoryWatch < 0, Self.now() >= nextRetry {
                reestablish()
                continue
            }
            guard library.isOpen else {
                _ = session.wake.wait(milliseconds: Int32(Self.retrySeconds * 1000))
                continue
            }
            switch library.next(timeoutSeconds: Self.retrySeconds) {
            case .timedOut:
                continue
            case .failed:
                // The descriptor is unusable: start over with a fresh instance.
                lose()
            case .event(let event):
                if event.wd == wakeWatch, wakeWatch >= 0 {
                    session.wake.drain()
                    continue
                }
                switch InotifyEventClassifier.classify(
                    wd: event.wd, mask: event.mask, name: event.name,
                    directoryWatch: directoryWatch,
                    fileName: target.name)
                {
                case .deliver(let fileEvent):
                    deliver(fileEvent)
                case .directoryLost:
                    lose()
                case .ignore:
                    break
                }
            }
        }
        library.close()
    }

    /// Reports the loss, drops the whole instance (libinotifytools keeps stale entries for
    /// kernel-removed watches, and a moved directory's watch must go) and tries to re-add at once.
    private mutating func lose() {
        deliver(.watchLost)
        library.close()
        directoryWatch = -1
        wakeWatch = -1
        nextRetry = Self.now()
        reestablish()
    }

    /// One attempt to get back a working instance and the directory watch.
    private mutating func reestablish() {
        if !library.isOpen {
            do { try openLibrary() } catch {
                library.close()
                scheduleRetry()
                return
            }
        }
        do {
            try addDirectoryWatch()
            deliver(.watchLost)  // re-established: the consumer must fully re-read
        } catch {
            scheduleRetry()
        }
    }

    /// Calls the handler unless a stop was requested (then nothing more is delivered, even when
    /// the handler itself called `stop()` in the middle of a loss/re-add sequence).
    private func deliver(_ event: FileWatchEvent) {
        guard !session.isStopRequested else { return }
        handler(event)
    }

    private mutating func scheduleRetry() {
        var next = Self.now()
        next.tv_sec += Self.retrySeconds
        nextRetry = next
    }

    static func now() -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts
    }
}

extension timespec {
    static func >= (lhs: timespec, rhs: timespec) -> Bool {
        lhs.tv_sec != rhs.tv_sec ? lhs.tv_sec > rhs.tv_sec : lhs.tv_nsec >= rhs.tv_nsec
    }
}

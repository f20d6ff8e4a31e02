import CInotifyTools
import Glibc

/// The body of the ``InotifyHub`` thread: owns libinotifytools from initialisation to cleanup,
/// keeps one watch per routed directory, and routes every event. Runs on that thread only.
struct InotifyHubLoop: ~Copyable {
    let hub: InotifyHub
    let session: InotifyHubRun

    private var library = InotifyToolsLibrary()
    private var wakeWatch: Int32 = -1
    /// Directories whose watch was lost: retried every second, `.watchLost` sent when back.
    private var lost: Set<String> = []
    private var nextRetry = timespec()

    init(hub: InotifyHub, run: InotifyHubRun) {
        self.hub = hub
        self.session = run
    }

    private mutating func openLibrary() throws(FileWatcherError) {
        try library.open()
        let wakePath = "/proc/self/fd/\(session.wake.readEnd)"
        do {
            wakeWatch = try library.addWatch(path: wakePath, mask: UInt32(IN_MODIFY))
        } catch {
            wakeWatch = -1  // waking is an optimisation: rounds then wait up to a second
        }
    }

    mutating func run() {
        do {
            try openLibrary()
        } catch {
            library.close()
            session.startupError.withLock { $0 = error }
            _ = session.ready.signal()
            return
        }
        _ = session.ready.signal()
        while !session.isStopRequested {
            session.liveness.tick()
            reconcile()
            guard library.isOpen else {
                _ = session.wake.wait(milliseconds: 1000)
                session.wake.drain()
                reopen()
                continue
            }
            switch library.next(timeoutSeconds: 1) {
            case .timedOut:
                continue
            case .failed:
                hub.deliver(hub.shared.withLock { $0.routes.everyone(.watchLost) })
                library.close()
                reopen()
            case .event(let event):
                if event.wd == wakeWatch, wakeWatch >= 0 {
                    session.wake.drain()
                    continue
                }
                let (deliveries, lostDirectory) = hub.shared.withLock {
                    $0.routes.route(wd: event.wd, mask: event.mask, name: event.name)
                }
                if let lostDirectory { lose(lostDirectory, watch: event.wd) }
                hub.deliver(deliveries)
            }
        }
        library.close()
        let waiters = hub.shared.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// A fresh instance after the old one failed: every directory is watched again.
    private mutating func reopen() {
        guard !library.isOpen else { return }
        do { try openLibrary() } catch {
            library.close()
            return
        }
        hub.shared.withLock { state in
            for path in state.routes.directories.keys {
                state.routes.setWatch(-1, for: path)
                lost.insert(path)
            }
        }
        nextRetry = Self.now()
    }

    /// Forgets a directory's watch (the kernel dropped it) and schedules its re-adding.
    private mutating func lose(_ directory: String, watch: Int32) {
        // A directory renamed away keeps its kernel watch (it follows the inode): drop it, so
        // that the path is watched afresh wherever it now leads. Watch numbers are not reused
        // soon (the kernel allocates them cyclically), so the removal's IN_IGNORED finds no route.
        library.removeWatch(watch)
        hub.shared.withLock { $0.routes.setWatch(-1, for: directory) }
        lost.insert(directory)
        nextRetry = Self.now()
    }

    /// Adds the watches routes need, removes those nobody needs, then releases the callers that
    /// waited for this round.
    private mutating func reconcile() {
        let (waiters, wanted, abandoned) = hub.shared.withLock { state in
            defer { state.waiters.removeAll() }
            return (state.waiters, state.routes.unwatched, state.routes.abandoned)
        }
        if library.isOpen {
            for (path, watch) in abandoned {
                library.removeWatch(watch)
                hub.shared.withLock { $0.routes.setWatch(-1, for: path) }
                lost.remove(path)
            }
            let retryDue = Self.now() >= nextRetry
            var retried = false
            for path in wanted where !lost.contains(path) || retryDue {
                retried = retried || lost.contains(path)
                add(path)
            }
            if retried {
                var next = Self.now()
                next.tv_sec += 1
                nextRetry = next
            }
        }
        for waiter in waiters { waiter.signal() }
    }

    private mutating func add(_ path: String) {
        do {
            let watch = try library.addWatch(path: path, mask: InotifyEventClassifier.directoryMask)
            hub.shared.withLock { state in
                state.routes.setWatch(watch, for: path)
                state.failures[path] = nil
            }
            if lost.remove(path) != nil {
                hub.deliver(hub.shared.withLock { $0.routes.everyone(in: path, .watchLost) })
            }
        } catch {
            hub.shared.withLock { $0.failures[path] = error }
        }
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

import BooksPlatform
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// Stopping, typed start errors and the descriptor limit of the inotify hub and its watchers.
extension InotifyWatcherTests {
    @Test func stopIsPromptStopsDeliveryAndEndsTheThread() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        #expect(ProcessThreads.count(named: "booksd-inotify") >= 1)
        let before = MonotonicClock.nanoseconds()
        watcher.stop()
        let stopMilliseconds = Double(MonotonicClock.nanoseconds() - before) / 1e6
        print("stopping the watcher and its hub took \(stopMilliseconds) ms")
        #expect(stopMilliseconds < 200)
        #expect(ProcessThreads.noneLeft(named: "booksd-inotify"))
        try TestFiles.write("5|Late|Nobody\n", to: books)
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all.isEmpty)
        watcher.stop()  // idempotent
        // …and the same watcher can be started again.
        try watcher.startWhenALowSlotIsFree(handler: recorder.handler)
        defer { watcher.stop() }
        try TestFiles.write("6|Again|Somebody\n", to: books)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func stopFromInsideTheHandlerDoesNotDeadlock() throws {
        let recorder = EventRecorder()
        let watcher = try HubWatcher(path: books)
        defer { watcher.stop() }
        let file = watcher.watcher
        try file.start { event in
            recorder.handler(event)
            file.stop()  // on the hub's thread: takes effect for the next event
        }
        try TestFiles.write("7|Self|Stop\n", to: books)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(eventuallyBlocking(timeout: 3, interval: 0.01) { watcher.hub.watchCount == 0 })
        #expect(watcher.hub.isAlive)  // the hub goes on serving the other stores
        try TestFiles.write("8|After|Stop\n", to: books)
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all == [.contentMayHaveChanged])
    }

    @Test func secondConcurrentWatcherIsATypedError() throws {
        let first = try started(EventRecorder())
        defer { first.stop() }
        let other = try TemporaryDirectory(prefix: "booksync-inotify-second")
        let second = try HubWatcher(path: other.file("books.txt"))
        #expect(throws: FileWatcherError.anotherInotifyWatcherActive(activePath: InotifyHub.slotName)) {
            try second.start { _ in }
        }
        #expect(throws: FileWatcherError.alreadyStarted) { try first.start { _ in } }
        first.stop()
        try second.start { _ in }  // the slot is free again
        second.stop()
    }

    @Test func missingDirectoryIsATypedErrorWithErrnoText() throws {
        let watcher = try HubWatcher(path: dir.file("missing/books.txt"))
        do {
            try watcher.start { _ in }
            Issue.record("start should have failed")
        } catch {
            #expect(error == .watchFailed(directory: dir.file("missing"), errno: ENOENT))
            #expect(error.description.contains("No such file or directory"))
        }
        // A failed start leaves nothing behind: no watch, and the hub stops cleanly.
        #expect(watcher.hub.watchCount == 0)
        watcher.stop()
        #expect(ProcessThreads.noneLeft(named: "booksd-inotify"))
    }

    @Test func highDescriptorsAreATypedErrorAndPrepareAvoidsThem() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = min(limit.rlim_max, 4096)
        guard limit.rlim_cur >= 1200, setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            print("skipping descriptor test: RLIMIT_NOFILE hard limit \(saved.rlim_max) is too low")
            return
        }
        let watcher = try HubWatcher(path: books)
        var fillers: [Int32] = []
        func fillUntilHigh() {
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return }
                fillers.append(fd)
                if fd >= 1100 { return }
            }
        }
        func releaseFillers() {
            for fd in fillers { close(fd) }
            fillers.removeAll()
        }
        defer {
            releaseFillers()
            var restore = saved
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        // A start on a table full below 1024: true when it ran. With the table full, any other
        // test's `open` in the microseconds between the reserved slot's `close` and the library's
        // `inotify_init` takes the slot; that start fails as it must, and is reported, not
        // counted (the slot is then open, and neither ours nor the reservation's).
        func startOnFullTable(_ handler: @escaping @Sendable (FileWatchEvent) -> Void, ours: [Int32]) throws -> Bool {
            guard case .held(let slot) = InotifyToolsLibrary.reservation.withLock({ $0 }) else {
                Issue.record("no low slot reserved before the start")
                return false
            }
            do {
                try watcher.start(handler: handler)
                return true
            } catch {
                guard case .descriptorAboveSelectLimit = error, fcntl(slot, F_GETFD) != -1, !ours.contains(slot)
                else { throw error }
                print("note: another test took the freed slot \(slot) before inotify_init; not exercised")
                return false
            }
        }

        // Without prepare(): the library would get a descriptor ≥ 1024 and abort in select().
        InotifyToolsLibrary.releaseReservation()
        fillUntilHigh()
        do {
            try watcher.start { _ in }
            // Only possible if a concurrently running test freed a low descriptor meanwhile.
            print("note: a low descriptor was free; the select-limit error path was not exercised")
            watcher.stop()
        } catch {
            guard case .descriptorAboveSelectLimit(let fd) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(fd >= 1024)
        }
        releaseFillers()

        // With prepare() first, a low slot is kept for the library even when the table fills up.
        #expect(InotifyHub.prepare())
        fillUntilHigh()
        let recorder = EventRecorder()
        if try startOnFullTable(recorder.handler, ours: fillers) {
            try TestFiles.write("9|Prepared|Early\n", to: books)
            #expect(recorder.wait(for: .contentMayHaveChanged))
            watcher.stop()
            // The slot is taken back after cleanup, so a second start works as well.
            _ = try startOnFullTable(recorder.handler, ours: fillers)
        }
        watcher.stop()
        releaseFillers()

        // While the library runs a spare low number is held; the stop hands the spare over, so
        // the number the library frees may be taken by anyone (an accept under load) at once.
        try watcher.start(handler: recorder.handler)
        guard case .inUse(spare: .some(let spare)) = InotifyToolsLibrary.reservation.withLock({ $0 }) else {
            Issue.record("no spare held while the library runs: \(InotifyToolsLibrary.reservation.withLock { $0 })")
            watcher.stop()
            return
        }
        #expect(spare < InotifyToolsLibrary.selectLimit)
        fillUntilHigh()
        watcher.stop()
        #expect(InotifyToolsLibrary.reservation.withLock { $0 } == .held(spare))
        fillUntilHigh()  // takes the freed library number too: the table is full below 1024
        _ = try startOnFullTable(recorder.handler, ours: fillers)
        watcher.stop()
    }
}

@testable import BooksDaemon
import Glibc
import Synchronization
import Testing

/// Real-inotify tests. libinotifytools is a process singleton: these run one at a time and every
/// test stops its watcher.
@Suite(.serialized)
struct InotifyFileWatcherTests {
    let dir: ScratchDirectory
    let books: String

    init() throws {
        dir = try ScratchDirectory("inotify")
        books = dir.file("books.txt")
        try writeFile(books, "1|Dune|Frank Herbert\n")
    }

    func started(_ recorder: EventRecorder) throws -> InotifyFileWatcher {
        let watcher = try InotifyFileWatcher(path: books)
        try watcher.start(handler: recorder.handler)
        return watcher
    }

    @Test func inPlaceWriteThenCloseIsAContentChange() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        try writeFile(books, "1|Dune|FRANK HERBERT\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
        usleep(settle)
        #expect(!recorder.all.contains(.removed))
        #expect(watcher.mode == .inotify)
    }

    @Test func renameOverIsAContentChange() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        let temp = dir.file(".books.txt.Ab12Cd")
        try writeFile(temp, "2|Emma|Jane Austen\n")
        #expect(rename(temp, books) == 0)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        usleep(settle)
        // The temp file's CREATE/CLOSE_WRITE/MOVED_FROM are about another name.
        #expect(recorder.all == [.contentMayHaveChanged])
    }

    @Test func otherNamesInTheDirectoryAreIgnored() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        for name in [".books.txt.swp", ".books.txt.swx", "4913", "books.txt~", "sedX1y2Z3", "XXab12cd",
                     ".books.txt.EWzG5d", "books.txt.bak", "Books.txt", "books.txt2"] {
            let path = dir.file(name)
            try writeFile(path, "noise\n")
            chmod(path, 0o600)
            unlink(path)
        }
        symlink("root@host.1234", dir.file(".#books.txt"))  // emacs lock
        unlink(dir.file(".#books.txt"))
        mkdir(dir.file("sub"), 0o755)
        rmdir(dir.file("sub"))
        usleep(settle)
        #expect(recorder.all.isEmpty)
    }

    @Test func unlinkIsRemovedAndRecreateIsCreatedThenContent() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(unlink(books) == 0)
        #expect(recorder.wait(for: .removed))
        try writeFile(books, "3|Ulysses|James Joyce\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(recorder.all == [.removed, .created, .contentMayHaveChanged])
    }

    @Test func moveAwayIsRemoved() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(rename(books, dir.file("books.bak")) == 0)
        #expect(recorder.wait(for: .removed))
        usleep(settle)
        #expect(recorder.all == [.removed])
    }

    @Test func chmodIsOnlyAttributesChanged() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(chmod(books, 0o600) == 0)
        #expect(recorder.wait(for: .attributesChanged))
        usleep(settle)
        #expect(recorder.all == [.attributesChanged])
    }

    @Test func modifyWithoutCloseIsNotReported() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        let fd = open(books, O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        var bytes = Array("4|Half".utf8)
        #expect(write(fd, &bytes, bytes.count) == bytes.count)
        usleep(settle)
        #expect(recorder.all.isEmpty)  // partial content: MODIFY only
        close(fd)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func stopIsPromptStopsDeliveryAndEndsTheThread() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        #expect(threadCount(named: "booksd-inotify") >= 1)
        let before = monotonicNanoseconds()
        watcher.stop()
        let stopMilliseconds = Double(monotonicNanoseconds() - before) / 1e6
        print("InotifyFileWatcher.stop() took \(stopMilliseconds) ms")
        #expect(stopMilliseconds < 200)
        #expect(threadsGone(named: "booksd-inotify"))
        try writeFile(books, "5|Late|Nobody\n")
        usleep(settle)
        #expect(recorder.all.isEmpty)
        watcher.stop()  // idempotent
        // …and the same watcher can be started again.
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        try writeFile(books, "6|Again|Somebody\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func stopFromInsideTheHandlerDoesNotDeadlock() throws {
        let recorder = EventRecorder()
        let watcher = try InotifyFileWatcher(path: books)
        let box = Mutex<InotifyFileWatcher?>(watcher)
        try watcher.start { event in
            recorder.handler(event)
            box.withLock { $0 }?.stop()
        }
        try writeFile(books, "7|Self|Stop\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(threadsGone(named: "booksd-inotify"))
        try writeFile(books, "8|After|Stop\n")
        usleep(settle)
        #expect(recorder.all == [.contentMayHaveChanged])
        box.withLock { $0 = nil }
    }

    @Test func secondConcurrentWatcherIsATypedError() throws {
        let first = try started(EventRecorder())
        defer { first.stop() }
        let other = try ScratchDirectory("inotify-second")
        let second = try InotifyFileWatcher(path: other.file("books.txt"))
        #expect(throws: FileWatcherError.anotherInotifyWatcherActive(activePath: books)) {
            try second.start { _ in }
        }
        #expect(throws: FileWatcherError.alreadyStarted) { try first.start { _ in } }
        first.stop()
        try second.start { _ in }  // the slot is free again
        second.stop()
    }

    @Test func missingDirectoryIsATypedErrorWithErrnoText() throws {
        let watcher = try InotifyFileWatcher(path: dir.file("missing/books.txt"))
        do {
            try watcher.start { _ in }
            Issue.record("start should have failed")
            watcher.stop()
        } catch {
            #expect(error == .watchFailed(directory: dir.file("missing"), errno: ENOENT))
            #expect(error.description.contains("No such file or directory"))
        }
        // A failed start leaves nothing behind: another watcher can start.
        let recorder = EventRecorder()
        let ok = try started(recorder)
        ok.stop()
        #expect(threadsGone(named: "booksd-inotify"))
    }

    @Test func directoryRemovedIsWatchLostThenReestablished() throws {
        let recorder = EventRecorder()
        let nested = dir.file("data")
        mkdir(nested, 0o755)
        let file = nested + "/books.txt"
        try writeFile(file, "1|Dune|Frank Herbert\n")
        let watcher = try InotifyFileWatcher(path: file)
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        unlink(file)
        rmdir(nested)
        #expect(recorder.wait(for: .watchLost))
        usleep(settle)
        #expect(recorder.all == [.removed, .watchLost])  // not re-added while the directory is absent
        mkdir(nested, 0o755)
        // Re-added within the 1-second retry period: a second .watchLost says "re-read now".
        #expect(recorder.wait(for: .watchLost, count: 2, timeout: 4))
        recorder.reset()
        try writeFile(file, "2|Emma|Jane Austen\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func directoryMovedAwayIsWatchLostAndOldDirectoryIsNoLongerWatched() throws {
        let recorder = EventRecorder()
        let nested = dir.file("data")
        mkdir(nested, 0o755)
        let file = nested + "/books.txt"
        try writeFile(file, "1|Dune|Frank Herbert\n")
        let watcher = try InotifyFileWatcher(path: file)
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        #expect(rename(nested, dir.file("moved")) == 0)
        #expect(recorder.wait(for: .watchLost))
        try writeFile(dir.file("moved/books.txt"), "edit in the moved directory\n")
        usleep(settle)
        #expect(recorder.all == [.watchLost])
        mkdir(nested, 0o755)
        #expect(recorder.wait(for: .watchLost, count: 2, timeout: 4))
        try writeFile(file, "2|Emma|Jane Austen\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func unmountIsWatchLostThenReestablished() throws {
        let mountPoint = dir.file("mnt")
        mkdir(mountPoint, 0o755)
        guard getuid() == 0, isExecutable("/bin/mount"),
              runTool(["/bin/mount", "-t", "tmpfs", "booksync-test", mountPoint]) == 0 else {
            print("skipping unmount test: cannot mount a tmpfs here (needs root)")
            return
        }
        var mounted = true
        defer { if mounted { _ = runTool(["/bin/umount", "-l", mountPoint]) } }
        let file = mountPoint + "/books.txt"
        try writeFile(file, "1|Dune|Frank Herbert\n")
        #expect(detectNetworkFileSystem(path: file) == nil)  // tmpfs is local
        let recorder = EventRecorder()
        let watcher = try InotifyFileWatcher(path: file)
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        #expect(runTool(["/bin/umount", mountPoint]) == 0)
        mounted = false
        // IN_UNMOUNT: lost; the mount point itself still exists underneath, so it is re-added.
        #expect(recorder.wait(for: .watchLost, count: 2, timeout: 4))
        try writeFile(file, "2|Emma|Jane Austen\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func queueOverflowIsReported() throws {
        let knob = "/proc/sys/fs/inotify/max_queued_events"
        guard getuid() == 0, let original = readSmallFile(knob) else {
            print("skipping overflow test: needs root to lower \(knob)")
            return
        }
        guard writeSmallFile(knob, "16\n") else {
            print("skipping overflow test: cannot write \(knob)")
            return
        }
        let recorder = EventRecorder()
        let gate = Gate()
        let watcher = try InotifyFileWatcher(path: books)
        do {
            defer { _ = writeSmallFile(knob, original) }  // the limit is copied at inotify_init
            try watcher.start { event in
                gate.waitOnce()  // hold the thread so the kernel queue fills up
                recorder.handler(event)
            }
        }
        defer { watcher.stop() }
        try writeFile(books, "first\n")
        usleep(50_000)
        for index in 0..<100 { try writeFile(dir.file("noise-\(index)"), "x") }
        gate.open()
        #expect(recorder.wait(for: .overflow))
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

        // Without prepare(): the library would get a descriptor ≥ 1024 and abort in select().
        InotifyToolsLibrary.releaseReservation()
        fillUntilHigh()
        let watcher = try InotifyFileWatcher(path: books)
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
        #expect(InotifyFileWatcher.prepare())
        fillUntilHigh()
        let recorder = EventRecorder()
        try watcher.start(handler: recorder.handler)
        try writeFile(books, "9|Prepared|Early\n")
        #expect(recorder.wait(for: .contentMayHaveChanged))
        watcher.stop()
        // The slot is taken back after cleanup, so a second start works as well.
        try watcher.start(handler: recorder.handler)
        watcher.stop()
    }

    @Test func handlerLatencyIsSubMillisecond() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        var latencies: [Double] = []
        for round in 0..<200 {
            let fd = open(books, O_WRONLY | O_TRUNC)
            var bytes = Array("\(round)|Book \(round)|Author\n".utf8)
            _ = write(fd, &bytes, bytes.count)
            let closedAt = monotonicNanoseconds()
            close(fd)
            guard recorder.wait(for: .contentMayHaveChanged, count: round + 1, timeout: 2) else { break }
            latencies.append(Double(recorder.deliveryTimes[round] - closedAt) / 1000)
        }
        #expect(latencies.count == 200)
        let sorted = latencies.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[sorted.count * 99 / 100]
        print("close() → handler latency over \(sorted.count) writes: median \(median) µs, p99 \(p99) µs, max \(sorted.last!) µs")
        #expect(median < 1000)
    }
}

/// Blocks the first caller of `waitOnce()` until `open()`.
final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    func waitOnce() { while !opened.load(ordering: .acquiring) { usleep(1000) } }
    func open() { opened.store(true, ordering: .releasing) }
}

func readSmallFile(_ path: String) -> String? {
    let fd = Glibc.open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = read(fd, &buffer, buffer.count)
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
}

func writeSmallFile(_ path: String, _ content: String) -> Bool {
    let fd = Glibc.open(path, O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var bytes = Array(content.utf8)
    return write(fd, &bytes, bytes.count) == bytes.count
}

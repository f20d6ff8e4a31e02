import BooksPlatform
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// The shared hub against the real kernel: an extension of the serialized inotify suite
/// (libinotifytools is a process singleton). Every test stops its hub.
extension InotifyWatcherTests {
    @Test func hubServesTwoFilesOfOneDirectoryWithOneWatch() throws {
        let hub = InotifyHub()
        defer { hub.stop() }
        let other = dir.file("other.txt")
        try TestFiles.write("2|Emma|Jane Austen\n", to: other)
        let first = EventRecorder()
        let second = EventRecorder()
        let a = try hub.fileWatcher(path: books)
        let b = try hub.fileWatcher(path: other)
        try a.start(handler: first.handler)
        try b.start(handler: second.handler)
        #expect(hub.watchCount == 1)
        #expect(a.deliversOnSharedThread && a.isAlive)

        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)
        #expect(first.wait(for: .contentMayHaveChanged))
        MonotonicClock.sleep(seconds: settle)
        #expect(second.all.isEmpty)
        // Editor noise beside the file reaches nobody.
        try TestFiles.write("x", to: dir.file(".books.txt.swp"))
        try TestFiles.write("x", to: dir.file("4913"))
        try TestFiles.write("2|Emma|JANE AUSTEN\n", to: other)
        #expect(second.wait(for: .contentMayHaveChanged))
        MonotonicClock.sleep(seconds: settle)
        #expect(first.all == [.contentMayHaveChanged])
    }

    @Test func hubStoppedWatcherHearsNothingAndLastOneDropsTheWatch() throws {
        let hub = InotifyHub()
        defer { hub.stop() }
        let recorder = EventRecorder()
        let watcher = try hub.fileWatcher(path: books)
        try watcher.start(handler: recorder.handler)
        watcher.stop()
        #expect(eventuallyBlocking(timeout: 3, interval: 0.01) { hub.watchCount == 0 })
        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all.isEmpty)
    }

    @Test func hubListenerHearsEveryEntryAndExcludesASecondHub() throws {
        let hub = InotifyHub()
        defer { hub.stop() }
        let names = Locked<[String]>([])
        let id = try hub.listen(directory: dir.path) { name, event in
            if event == .contentMayHaveChanged { names.withLock { $0.append(name) } }
        }
        try TestFiles.write("3|X|Y\n", to: dir.file("new.txt"))
        #expect(eventuallyBlocking(timeout: 3, interval: 0.01) { names.withLock { $0.contains("new.txt") } })
        let competing = InotifyHub()
        #expect(throws: FileWatcherError.anotherInotifyWatcherActive(activePath: InotifyHub.slotName)) {
            try competing.start()
        }
        hub.remove(id)
        #expect(hub.watchCount == 0)
    }

    @Test func hubRefusesAMissingDirectoryAndKeepsServingOthers() throws {
        let hub = InotifyHub()
        defer { hub.stop() }
        let missing = try hub.fileWatcher(path: dir.file("missing/books.txt"))
        #expect(throws: FileWatcherError.self) { try missing.start(handler: { _ in }) }
        let recorder = EventRecorder()
        let watcher = try hub.fileWatcher(path: books)
        try watcher.start(handler: recorder.handler)
        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }
}

extension InotifyWatcherTests {
    @Test func hubLostDirectoryIsReAddedWhileOtherDirectoriesKeepTheirWatch() throws {
        let hub = InotifyHub()
        defer { hub.stop() }
        let sub = dir.makeDirectory("sub")
        let lostRecorder = EventRecorder()
        let keptRecorder = EventRecorder()
        let lost = try hub.fileWatcher(path: sub + "/books.txt")
        try lost.start(handler: lostRecorder.handler)
        let kept = try hub.fileWatcher(path: books)
        try kept.start(handler: keptRecorder.handler)
        #expect(hub.watchCount == 2)
        #expect(rmdir(sub) == 0)
        #expect(lostRecorder.wait(for: .watchLost))
        #expect(mkdir(sub, 0o755) == 0)
        #expect(lostRecorder.wait(for: .watchLost, count: 2, timeout: 5))
        try TestFiles.write("1|Dune|Frank Herbert\n", to: sub + "/books.txt")
        #expect(lostRecorder.wait(for: .contentMayHaveChanged))
        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)
        #expect(keptRecorder.wait(for: .contentMayHaveChanged))
        #expect(!keptRecorder.all.contains(.watchLost))
        #expect(hub.watchCount == 2)
    }
}

import BooksTestSupport
import Glibc
import Synchronization
import Testing

@testable import BooksDaemon

/// Real-inotify tests of the watcher booksd runs: a ``HubFileWatcher`` on an ``InotifyHub``.
/// libinotifytools is a process singleton: these run one at a time and every test stops its
/// hub. This file: how each kind of edit is reported; `EditorMethodTests` (real editors),
/// `InotifyHubTests` (several files and listeners on one hub), `InotifyWatcherLifecycleTests`
/// (stop, start errors, descriptors) and `InotifyWatchLossTests` (watch lost and re-established,
/// overflow, latency) extend the suite.
@Suite(.serialized, .descriptorTableTurn)
struct InotifyWatcherTests {
    let dir: TemporaryDirectory
    let books: String

    init() throws {
        dir = try TemporaryDirectory(prefix: "booksync-inotify")
        books = dir.file("books.txt")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: books)
    }

    func started(_ recorder: EventRecorder) throws -> HubWatcher {
        let watcher = try HubWatcher(path: books)
        try watcher.startWhenALowSlotIsFree(handler: recorder.handler)
        return watcher
    }

    @Test func inPlaceWriteThenCloseIsAContentChange() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        MonotonicClock.sleep(seconds: settle)
        #expect(!recorder.all.contains(.removed))
        #expect(watcher.mode == .inotify)
    }

    @Test func renameOverIsAContentChange() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        let temp = dir.file(".books.txt.Ab12Cd")
        try TestFiles.write("2|Emma|Jane Austen\n", to: temp)
        #expect(rename(temp, books) == 0)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        MonotonicClock.sleep(seconds: settle)
        // The temp file's CREATE/CLOSE_WRITE/MOVED_FROM are about another name.
        #expect(recorder.all == [.contentMayHaveChanged])
    }

    @Test func otherNamesInTheDirectoryAreIgnored() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        for name in [
            ".books.txt.swp", ".books.txt.swx", "4913", "books.txt~", "sedX1y2Z3", "XXab12cd",
            ".books.txt.EWzG5d", "books.txt.bak", "Books.txt", "books.txt2",
        ] {
            let path = dir.file(name)
            try TestFiles.write("noise\n", to: path)
            chmod(path, 0o600)
            unlink(path)
        }
        symlink("root@host.1234", dir.file(".#books.txt"))  // emacs lock
        unlink(dir.file(".#books.txt"))
        mkdir(dir.file("sub"), 0o755)
        rmdir(dir.file("sub"))
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all.isEmpty)
    }

    @Test func unlinkIsRemovedAndRecreateIsCreatedThenContent() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(unlink(books) == 0)
        #expect(recorder.wait(for: .removed))
        try TestFiles.write("3|Ulysses|James Joyce\n", to: books)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(recorder.all == [.removed, .created, .contentMayHaveChanged])
    }

    @Test func moveAwayIsRemoved() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(rename(books, dir.file("books.bak")) == 0)
        #expect(recorder.wait(for: .removed))
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all == [.removed])
    }

    @Test func chmodIsOnlyAttributesChanged() throws {
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect(chmod(books, 0o600) == 0)
        #expect(recorder.wait(for: .attributesChanged))
        MonotonicClock.sleep(seconds: settle)
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
        MonotonicClock.sleep(seconds: settle)
        #expect(recorder.all.isEmpty)  // partial content: MODIFY only
        close(fd)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }
}

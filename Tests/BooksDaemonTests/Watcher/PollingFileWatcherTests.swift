import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

@Suite struct PollingFileWatcherTests {
    @Test func detectsChangeRemovalAndRecreation() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-polling")
        let books = dir.file("books.txt")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: books)
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 0.02)
        #expect(watcher.mode == .polling(intervalSeconds: 0.02))
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        MonotonicClock.sleep(seconds: 0.1)
        #expect(recorder.all.isEmpty)  // the initial state is not an event

        try TestFiles.write("1|Dune|FRANK HERBERT\n", to: books)  // same size: mtime/ctime must catch it
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(unlink(books) == 0)
        #expect(recorder.wait(for: .removed))
        try TestFiles.write("2|Emma|Jane Austen\n", to: books)
        #expect(recorder.wait(for: .created))
        MonotonicClock.sleep(seconds: 0.1)
        #expect(recorder.all == [.contentMayHaveChanged, .removed, .created])
    }

    @Test func renameOverIsAChange() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-polling")
        let books = dir.file("books.txt")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: books)
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 0.02)
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        try TestFiles.write("1|Dune|Frank Herbert\n", to: dir.file("tmp"))  // identical bytes, new inode
        #expect(rename(dir.file("tmp"), books) == 0)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func stopIsPromptEvenWithALongInterval() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-polling")
        let books = dir.file("books.txt")
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 30)
        try watcher.start(handler: recorder.handler)
        #expect(throws: FileWatcherError.alreadyStarted) { try watcher.start { _ in } }
        let before = MonotonicClock.nanoseconds()
        watcher.stop()
        let milliseconds = Double(MonotonicClock.nanoseconds() - before) / 1e6
        #expect(milliseconds < 100)
        watcher.stop()
    }
}

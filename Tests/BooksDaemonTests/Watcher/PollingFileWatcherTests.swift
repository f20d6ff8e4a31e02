@testable import BooksDaemon
import Glibc
import Testing

@Suite struct PollingFileWatcherTests {
    @Test func detectsChangeRemovalAndRecreation() throws {
        let dir = try ScratchDirectory("polling")
        let books = dir.file("books.txt")
        try writeFile(books, "1|Dune|Frank Herbert\n")
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 0.02)
        #expect(watcher.mode == .polling(intervalSeconds: 0.02))
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        usleep(100_000)
        #expect(recorder.all.isEmpty)  // the initial state is not an event

        try writeFile(books, "1|Dune|FRANK HERBERT\n")  // same size: mtime/ctime must catch it
        #expect(recorder.wait(for: .contentMayHaveChanged))
        #expect(unlink(books) == 0)
        #expect(recorder.wait(for: .removed))
        try writeFile(books, "2|Emma|Jane Austen\n")
        #expect(recorder.wait(for: .created))
        usleep(100_000)
        #expect(recorder.all == [.contentMayHaveChanged, .removed, .created])
    }

    @Test func renameOverIsAChange() throws {
        let dir = try ScratchDirectory("polling")
        let books = dir.file("books.txt")
        try writeFile(books, "1|Dune|Frank Herbert\n")
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 0.02)
        try watcher.start(handler: recorder.handler)
        defer { watcher.stop() }
        try writeFile(dir.file("tmp"), "1|Dune|Frank Herbert\n")  // identical bytes, new inode
        #expect(rename(dir.file("tmp"), books) == 0)
        #expect(recorder.wait(for: .contentMayHaveChanged))
    }

    @Test func stopIsPromptEvenWithALongInterval() throws {
        let dir = try ScratchDirectory("polling")
        let books = dir.file("books.txt")
        let recorder = EventRecorder()
        let watcher = try PollingFileWatcher(path: books, intervalSeconds: 30)
        try watcher.start(handler: recorder.handler)
        #expect(throws: FileWatcherError.alreadyStarted) { try watcher.start { _ in } }
        let before = monotonicNanoseconds()
        watcher.stop()
        let milliseconds = Double(monotonicNanoseconds() - before) / 1e6
        #expect(milliseconds < 100)
        watcher.stop()
    }
}

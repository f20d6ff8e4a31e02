import BooksDaemon
import BooksTestSupport
import Testing

/// `FileWatcher.isAlive` (used by booksd's watchdog): true while the watcher thread goes round
/// its loop, false before start and after stop.
@Suite struct WatcherLivenessTests {
    @Test func pollingWatcherIsAliveOnlyWhileRunning() throws {
        let directory = try TemporaryDirectory(prefix: "bsd-live")
        let watcher = try PollingFileWatcher(path: directory.file("books.txt"), intervalSeconds: 0.02)
        #expect(!watcher.isAlive)
        try watcher.start { _ in }
        MonotonicClock.sleep(seconds: 0.1)
        #expect(watcher.isAlive)
        watcher.stop()
        #expect(!watcher.isAlive)
    }
}

import BooksDaemon
import Glibc
import Testing

/// `FileWatcher.isAlive` (used by booksd's watchdog): true while the watcher thread goes round
/// its loop, false before start and after stop.
@Suite struct WatcherLivenessTests {
    @Test func pollingWatcherIsAliveOnlyWhileRunning() throws {
        var template = Array("/tmp/bsd-live-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(directory)'") }
        let watcher = try PollingFileWatcher(path: directory + "/books.txt", intervalSeconds: 0.02)
        #expect(!watcher.isAlive)
        try watcher.start { _ in }
        usleep(100_000)
        #expect(watcher.isAlive)
        watcher.stop()
        #expect(!watcher.isAlive)
    }
}

import BooksStore
import BooksTestSupport
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import BooksDaemon

/// booksd's watchdog ping is tied to real liveness: a stuck reconciler queue, a stopped server
/// loop or a dead watcher thread each stop `WATCHDOG=1`.
@Suite struct WatchdogProbeTests {
    final class PingCounter: Sendable {
        let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
    }

    final class FakeWatcher: FileWatcher {
        let alive = Atomic<Bool>(true)
        var mode: WatchMode { .inotify }
        func start(handler: @escaping @Sendable (FileWatchEvent) -> Void) throws(FileWatcherError) {}
        func stop() {}
        var isAlive: Bool { alive.load(ordering: .sequentiallyConsistent) }
    }

    struct Rig {
        let directory: TemporaryDirectory
        let engine: BookEngine
        let server: SocketServer
        let watcher = FakeWatcher()
        let pings = PingCounter()
        let probe: WatchdogProbe

        init() throws {
            directory = try TemporaryDirectory(prefix: "bsd-wd")
            let logger = Logger(backend: StderrLogBackend(fileDescriptor: open("/dev/null", O_WRONLY | O_CLOEXEC)))
            server = try SocketServer(configuration: SocketServerConfiguration(path: directory.file("s.sock")))
            engine = BookEngine(
                configuration: DaemonConfiguration(),
                store: makeBookStore(
                    path: directory.file("books.txt"), format: .text,
                    lineLimit: 1 << 20),
                logger: logger, channel: server)
            try server.start(delegate: StoreRouter(server: server, directory: TestStoreDirectory(["default": engine])))
            let pings = self.pings
            probe = WatchdogProbe(
                watcher: watcher, server: server, engine: engine, logger: logger,
                ping: { pings.count.add(1, ordering: .sequentiallyConsistent) })
        }

        func waitForPings(_ n: Int, seconds: Double = 2) -> Bool {
            eventuallyBlocking(timeout: seconds, interval: 0.01) { pings.value >= n }
        }

        func tearDown() {
            server.shutdown(reason: "test over", timeout: .milliseconds(100))
            directory.remove()
        }
    }

    @Test func pingsWhenEverythingRuns() throws {
        let rig = try Rig()
        defer { rig.tearDown() }
        #expect(rig.probe.run())
        #expect(rig.waitForPings(1))
    }

    @Test func stuckReconcilerQueueStopsThePingsUntilItRunsAgain() throws {
        let rig = try Rig()
        defer { rig.tearDown() }
        let release = DispatchSemaphore(value: 0)
        rig.engine.onQueue { release.wait() }  // the reconciler's event loop is now stuck
        for _ in 0..<3 { rig.probe.run() }
        MonotonicClock.sleep(seconds: 0.3)
        #expect(rig.pings.value == 0)
        release.signal()
        #expect(rig.waitForPings(3))
    }

    @Test func stoppedServerLoopStopsThePings() throws {
        let rig = try Rig()
        defer { rig.tearDown() }
        rig.server.shutdown(reason: "gone", timeout: .milliseconds(100))
        rig.probe.run()
        MonotonicClock.sleep(seconds: 0.3)
        #expect(rig.pings.value == 0)
    }

    @Test func deadWatcherThreadStopsThePings() throws {
        let rig = try Rig()
        defer { rig.tearDown() }
        rig.watcher.alive.store(false, ordering: .sequentiallyConsistent)
        #expect(!rig.probe.run())
        MonotonicClock.sleep(seconds: 0.2)
        #expect(rig.pings.value == 0)
        rig.watcher.alive.store(true, ordering: .sequentiallyConsistent)
        #expect(rig.probe.run())
        #expect(rig.waitForPings(1))
    }
}

import BooksPlatform
import BooksTestSupport
import Synchronization

@testable import BooksDaemon

/// Collects events delivered to a handler and waits for them.
final class EventRecorder: Sendable {
    /// Each event with its delivery time, under one lock: a waiter that sees an event also sees
    /// its time (two locks once let `handlerLatencyIsSubMillisecond` read a time not yet written).
    private let recorded = Locked<[(event: FileWatchEvent, at: UInt64)]>([])

    var handler: @Sendable (FileWatchEvent) -> Void {
        { [self] event in
            let now = MonotonicClock.nanoseconds()
            recorded.withLock { $0.append((event, now)) }
        }
    }

    var all: [FileWatchEvent] { recorded.withLock { $0.map(\.event) } }
    var deliveryTimes: [UInt64] { recorded.withLock { $0.map(\.at) } }

    func reset() { recorded.withLock { $0.removeAll() } }

    /// Waits until `event` has been recorded (true) or `timeout` seconds passed (false).
    @discardableResult
    func wait(for event: FileWatchEvent, count: Int = 1, timeout: Double = 3) -> Bool {
        waitUntil(timeout: timeout) { $0.filter { $0 == event }.count >= count }
    }

    func waitUntil(timeout: Double = 3, _ condition: ([FileWatchEvent]) -> Bool) -> Bool {
        eventuallyBlocking(timeout: timeout, interval: 0.002) { condition(all) }
    }
}

/// Quiet time (seconds) used to check that nothing (more) is delivered.
let settle = 0.3

/// Blocks the first caller of `waitOnce()` until `open()`.
final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    func waitOnce() { eventuallyBlocking(timeout: .infinity, interval: 0.001) { opened.load(ordering: .acquiring) } }
    func open() { opened.store(true, ordering: .releasing) }
}

/// A per-file watcher on an inotify hub of its own, as booksd runs one per store
/// (`InotifyHub.fileWatcher`). `stop()` stops the watcher and then the hub, so that no test
/// leaves the process-wide libinotifytools taken; `start` starts the hub again.
final class HubWatcher: Sendable {
    let hub = InotifyHub()
    let watcher: HubFileWatcher

    init(path: String) throws(FileWatcherError) { watcher = try hub.fileWatcher(path: path) }

    func start(handler: @escaping @Sendable (FileWatchEvent) -> Void) throws(FileWatcherError) {
        try watcher.start(handler: handler)
    }

    /// `start`, waiting (up to `timeout` seconds) while no descriptor below 1024 is free. The
    /// whole unit run holds hundreds of sockets at once (all its suites start together; under
    /// AddressSanitizer they stay open longer), which can leave libinotifytools no low number for
    /// a moment; the product's error is right, but these tests are about events, not about that
    /// (`InotifyWatcherLifecycleTests` tests the error itself, with `start`).
    func startWhenALowSlotIsFree(
        timeout: Double = 30, handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws(FileWatcherError) {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            do {
                return try watcher.start(handler: handler)
            } catch .descriptorAboveSelectLimit where MonotonicClock.seconds() < deadline {
                MonotonicClock.sleep(seconds: 0.05)
            }
        }
    }

    func stop() {
        watcher.stop()
        hub.stop()
    }

    var mode: WatchMode { watcher.mode }
}
